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
    // Without blocks data objects cannot be made, but the empty one can be used.
    dispatch_data_t empty = dispatch_data_create_subrange(dispatch_data_empty, 0, 1);
    if (dispatch_data_get_size(empty) == 0 && empty == dispatch_data_empty) ran++;
    dispatch_release(empty);
    printf("no blocks: %s\n", ran == 3 ? "ok" : "FAILED");
    dispatch_release(group);
    dispatch_release(queue);
    return ran == 3 ? 0 : 1;
}
