// Conveyor's <dispatch/dispatch.h> without blocks: compiled without -fblocks (with GCC
// when it is installed), using the _f forms only; exits 0 when the work ran.
#include <dispatch/dispatch.h>
#include <stdio.h>

static int ran;
static void work(void *context) { ran += *(int *)context; }

int main(void) {
    int one = 1;
    dispatch_queue_t queue = dispatch_queue_create("no-blocks", DISPATCH_QUEUE_CONCURRENT);
    dispatch_group_t group = dispatch_group_create();
    dispatch_group_async_f(group, queue, &one, work);
    dispatch_group_wait(group, DISPATCH_TIME_FOREVER);
    dispatch_barrier_sync_f(queue, &one, work);
    printf("no blocks: %s\n", ran == 2 ? "ok" : "FAILED");
    dispatch_release(group);
    dispatch_release(queue);
    return ran == 2 ? 0 : 1;
}
