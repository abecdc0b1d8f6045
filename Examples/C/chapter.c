//===----------------------------------------------------------------------===//
//
// This source file is part of the Conveyor open source project
//
// Copyright (c) 2026 the Conveyor project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// The chapter's C listings (reference/dispatch-queues-chapter.txt, "Dispatch Queues"),
// built against Conveyor's <dispatch/dispatch.h> by Scripts/c-api.sh.
#include <dispatch/dispatch.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

// Listing 3-1: a simple block example.
static void simple_block(void) {
    int x = 123;
    int y = 456;
    // Block declaration and assignment
    void (^aBlock)(int) = ^(int z) {
        printf("3-1: %d %d %d\n", x, y, z);
    };
    // Execute the block
    aBlock(789);   // prints: 123 456 789
}

// "Adding Tasks to a Queue": the block-based variants, asynchronous and synchronous.
static void add_tasks(void) {
    dispatch_queue_t myCustomQueue;
    myCustomQueue = dispatch_queue_create("com.example.MyCustomQueue", NULL);
    dispatch_async(myCustomQueue, ^{
        printf("tasks: Do some work here.\n");
    });
    printf("tasks: The first block may or may not have run.\n");
    dispatch_sync(myCustomQueue, ^{
        printf("tasks: Do some more work here.\n");
    });
    printf("tasks: Both blocks have completed.\n");
    dispatch_release(myCustomQueue);
}

// Listing 3-2: creating a new serial queue.
static dispatch_queue_t make_serial_queue(void) {
    return dispatch_queue_create("com.example.MyQueue", NULL);
}

// Listing 3-3: installing a queue clean-up function.
typedef struct { int value; } MyDataContext;
static void myFinalizerFunction(void *context) {
    MyDataContext *theData = (MyDataContext *)context;
    printf("3-3: finalizer frees the context (value %d)\n", theData->value);
    free(theData);
}
static dispatch_queue_t createMyQueue(void) {
    MyDataContext *data = (MyDataContext *)malloc(sizeof(MyDataContext));
    data->value = 42;
    dispatch_queue_t serialQueue = dispatch_queue_create("com.example.CriticalTaskQueue", NULL);
    dispatch_set_context(serialQueue, data);
    dispatch_set_finalizer_f(serialQueue, &myFinalizerFunction);
    return serialQueue;
}

// Listing 3-4: executing a completion callback after a task.
static void average_async(int *data, size_t len, dispatch_queue_t queue, void (^block)(int)) {
    dispatch_retain(queue);
    dispatch_async(dispatch_get_global_queue(DISPATCH_QUEUE_PRIORITY_DEFAULT, 0), ^{
        int sum = 0;
        for (size_t i = 0; i < len; i++) sum += data[i];
        int avg = sum / (int)len;
        dispatch_async(queue, ^{ block(avg); });
        dispatch_release(queue);
    });
}

int main(void) {
    simple_block();
    add_tasks();
    dispatch_queue_t queue = make_serial_queue();
    printf("3-2: created queue '%s'\n", dispatch_queue_get_label(queue));

    dispatch_queue_t cleaned = createMyQueue();
    dispatch_release(cleaned);

    static int numbers[] = {1, 2, 3, 4, 5, 6};
    dispatch_semaphore_t done = dispatch_semaphore_create(0);
    average_async(numbers, 6, queue, ^(int avg) { printf("3-4: average %d\n", avg); dispatch_semaphore_signal(done); });
    dispatch_semaphore_wait(done, DISPATCH_TIME_FOREVER);

    // Listing 3-5: performing the iterations of a for loop concurrently.
    size_t count = 10;
    static int squares[10];
    dispatch_queue_t global = dispatch_get_global_queue(DISPATCH_QUEUE_PRIORITY_DEFAULT, 0);
    dispatch_apply(count, global, ^(size_t i) { squares[i] = (int)(i * i); });
    printf("3-5: dispatch_apply: squares[9] = %d\n", squares[9]);

    // Listing 3-6: waiting on asynchronous tasks.
    dispatch_group_t group = dispatch_group_create();
    __block int tasks = 0;
    dispatch_queue_t counter = dispatch_queue_create("com.example.counter", NULL);
    for (int i = 0; i < 5; i++) dispatch_group_async(group, global, ^{ dispatch_sync(counter, ^{ tasks++; }); });
    dispatch_group_wait(group, DISPATCH_TIME_FOREVER);
    printf("3-6: the group's %d tasks are done\n", tasks);
    dispatch_release(group);

    // "Using Dispatch Semaphores to Regulate the Use of Finite Resources".
    // Create the semaphore, specifying the initial pool size
    dispatch_semaphore_t fd_sema = dispatch_semaphore_create(getdtablesize() / 2);
    // Wait for a free file descriptor
    dispatch_semaphore_wait(fd_sema, DISPATCH_TIME_FOREVER);
    int fd = open("/etc/services", O_RDONLY);
    printf("semaphore: opened /etc/services: %s\n", fd >= 0 ? "yes" : "no (absent here)");
    // Release the file descriptor when done
    if (fd >= 0) close(fd);
    dispatch_semaphore_signal(fd_sema);
    dispatch_release(fd_sema);

    dispatch_release(counter);
    dispatch_release(queue);
    dispatch_after(dispatch_time(DISPATCH_TIME_NOW, 50 * NSEC_PER_MSEC), dispatch_get_main_queue(), ^{
        printf("done on the main queue\n");
        exit(0);
    });
    dispatch_main();
}
