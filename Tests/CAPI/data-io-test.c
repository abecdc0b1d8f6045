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

// The C API's dispatch_data_* and dispatch_io_* (Tests/CAPI harness, run by
// Scripts/c-api.sh). Prints one line per check and exits non-zero if any failed. The same
// file builds against the toolchain's libdispatch (clang -fblocks -I
// /opt/swift/usr/lib/swift ... -ldispatch), which is how its expectations were checked.
#define _GNU_SOURCE
#include <dispatch/dispatch.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int failures = 0;
#define CHECK(condition, ...) do { \
    if (condition) { printf("ok   "); } else { printf("FAIL "); failures++; } \
    printf(__VA_ARGS__); printf("\n"); fflush(stdout); } while (0)

// Every heap block copy the library makes must be released once it is done with it (a
// block submitted is copied once and released after its last call). This program's
// _Block_copy and _Block_release stand in for the BlocksRuntime's and count the copies
// still alive.
static atomic_long live_blocks, block_copies;
void *_Block_copy(const void *block) {
    static void *(*real)(const void *);
    if (!real) real = (void *(*)(const void *))dlsym(RTLD_NEXT, "_Block_copy");
    atomic_fetch_add(&live_blocks, 1);
    atomic_fetch_add(&block_copies, 1);
    return real(block);
}
void _Block_release(const void *block) {
    static void (*real)(const void *);
    if (!real) real = (void (*)(const void *))dlsym(RTLD_NEXT, "_Block_release");
    atomic_fetch_sub(&live_blocks, 1);
    real(block);
}

static dispatch_time_t in_seconds(int seconds) { return dispatch_time(DISPATCH_TIME_NOW, (int64_t)seconds * NSEC_PER_SEC); }

// The bytes of `data` as a NUL-terminated string (malloc'ed), through dispatch_data_apply.
static char *string_of(dispatch_data_t data) {
    size_t size = dispatch_data_get_size(data);
    char *text = calloc(size + 1, 1);
    dispatch_data_apply(data, ^bool(dispatch_data_t region, size_t offset, const void *buffer, size_t length) {
        (void)region;
        memcpy(text + offset, buffer, length);
        return true;
    });
    return text;
}

static void signal_context(void *semaphore) { dispatch_semaphore_signal((dispatch_semaphore_t)semaphore); }

static dispatch_data_t make(const char *text) {
    return dispatch_data_create(text, strlen(text), NULL, DISPATCH_DATA_DESTRUCTOR_DEFAULT);
}

static void data_objects(void) {
    char buffer[] = "hello";
    dispatch_data_t hello = make(buffer);
    buffer[0] = 'j';
    char *text = string_of(hello);
    CHECK(dispatch_data_get_size(hello) == 5 && strcmp(text, "hello") == 0,
          "dispatch_data_create with DISPATCH_DATA_DESTRUCTOR_DEFAULT copies the bytes");
    free(text);

    dispatch_data_t none = dispatch_data_create(buffer, 0, NULL, DISPATCH_DATA_DESTRUCTOR_DEFAULT);
    CHECK(none == dispatch_data_empty && dispatch_data_get_size(dispatch_data_empty) == 0,
          "no bytes give dispatch_data_empty");
    dispatch_release(none);
    dispatch_retain(dispatch_data_empty);
    dispatch_release(dispatch_data_empty);

    // A block destructor runs on the given queue once the last reference is gone.
    static int key;
    dispatch_queue_t queue = dispatch_queue_create("data.destructor", NULL);
    dispatch_queue_set_specific(queue, &key, &key, NULL);
    dispatch_semaphore_t destroyed = dispatch_semaphore_create(0);
    __block int on_queue = 0;
    char *owned = strdup("owned bytes");
    dispatch_data_t custom = dispatch_data_create(owned, strlen(owned), queue, ^{
        on_queue = dispatch_get_specific(&key) == &key;
        free(owned);
        dispatch_semaphore_signal(destroyed);
    });
    dispatch_data_t part = dispatch_data_create_subrange(custom, 6, 5);
    dispatch_release(custom);
    CHECK(dispatch_semaphore_wait(destroyed, dispatch_time(DISPATCH_TIME_NOW, 50 * NSEC_PER_MSEC)) != 0,
          "the destructor waits while a subrange still uses the bytes");
    text = string_of(part);
    CHECK(strcmp(text, "bytes") == 0, "dispatch_data_create_subrange shares the bytes");
    free(text);
    dispatch_release(part);
    CHECK(dispatch_semaphore_wait(destroyed, in_seconds(5)) == 0 && on_queue,
          "a block destructor runs on its queue after the last release");

    // DISPATCH_DATA_DESTRUCTOR_FREE takes a malloc'ed buffer over.
    char *heap = strdup("free me");
    dispatch_data_t freed = dispatch_data_create(heap, 7, NULL, DISPATCH_DATA_DESTRUCTOR_FREE);
    const void *mapped_bytes = NULL;
    size_t mapped_size = 0;
    dispatch_data_t same = dispatch_data_create_map(freed, &mapped_bytes, &mapped_size);
    CHECK(same == freed && mapped_bytes == heap && mapped_size == 7,
          "DISPATCH_DATA_DESTRUCTOR_FREE keeps the buffer; mapping contiguous data returns the object itself");
    dispatch_release(same);
    dispatch_release(freed);

    // DISPATCH_DATA_DESTRUCTOR_MUNMAP unmaps the pages with the last reference. (The
    // toolchain's libdispatch on Linux dies of an illegal instruction at that release, a
    // known fault of its Linux port: it runs the constant's block instead of unmapping.
    // Conveyor unmaps, as libdispatch does on Darwin; the reference build skips this.)
#ifdef __CONVEYOR_DISPATCH__
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *pages = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    strcpy(pages, "mapped");
    dispatch_data_t unmapped = dispatch_data_create(pages, page, NULL, DISPATCH_DATA_DESTRUCTOR_MUNMAP);
    int mapped_before = msync(pages, page, MS_ASYNC) == 0;
    dispatch_release(unmapped);
    int gone = 0;   // msync fails with ENOMEM on a range that is not mapped
    for (int i = 0; i < 500 && !gone; i++) {
        gone = msync(pages, page, MS_ASYNC) != 0 && errno == ENOMEM;
        if (!gone) usleep(10000);
    }
    CHECK(mapped_before && gone, "DISPATCH_DATA_DESTRUCTOR_MUNMAP unmaps the pages after the last release");
#endif

    // Concatenation, regions, maps and subranges.
    dispatch_data_t a = make("abc"), b = make("defg"), c = make("hi");
    dispatch_data_t ab = dispatch_data_create_concat(a, b);
    dispatch_data_t abc = dispatch_data_create_concat(ab, c);
    CHECK(dispatch_data_get_size(abc) == 9, "dispatch_data_create_concat adds the sizes");
    dispatch_data_t a_again = dispatch_data_create_concat(a, dispatch_data_empty);
    CHECK(a_again == a, "concatenating the empty data returns the object");
    dispatch_release(a_again);
    dispatch_release(a);

    static size_t offsets[8], sizes[8];
    __block size_t regions = 0;
    bool all = dispatch_data_apply(abc, ^bool(dispatch_data_t region, size_t offset, const void *buffer, size_t size) {
        (void)buffer;
        offsets[regions] = offset;
        sizes[regions++] = size;
        return dispatch_data_get_size(region) == size;
    });
    CHECK(all && regions == 3 && offsets[0] == 0 && offsets[1] == 3 && offsets[2] == 7 && sizes[1] == 4,
          "dispatch_data_apply visits each region in order with its offset and size");
    __block int visits = 0;
    bool stopped = !dispatch_data_apply(abc, ^bool(dispatch_data_t region, size_t offset, const void *buffer, size_t size) {
        (void)region; (void)offset; (void)buffer; (void)size;
        return ++visits < 2;
    });
    CHECK(stopped && visits == 2, "an applier returning false stops the walk and dispatch_data_apply returns false");

    size_t offset = 99;
    dispatch_data_t region = dispatch_data_copy_region(abc, 5, &offset);
    text = string_of(region);
    CHECK(offset == 3 && strcmp(text, "defg") == 0, "dispatch_data_copy_region finds the region holding a byte");
    free(text);
    dispatch_release(region);
    region = dispatch_data_copy_region(abc, 9, &offset);
    CHECK(region == dispatch_data_empty && offset == 9, "dispatch_data_copy_region past the end: the empty data");

    const void *flat = NULL;
    size_t flat_size = 0;
    dispatch_data_t map = dispatch_data_create_map(abc, &flat, &flat_size);
    CHECK(flat_size == 9 && memcmp(flat, "abcdefghi", 9) == 0 && dispatch_data_get_size(map) == 9,
          "dispatch_data_create_map makes the bytes contiguous");
    dispatch_release(map);

    dispatch_data_t middle = dispatch_data_create_subrange(abc, 2, 6);
    text = string_of(middle);
    CHECK(strcmp(text, "cdefgh") == 0, "a subrange across regions");
    free(text);
    // Its pieces are parts of buffers: the region object given with each is the whole
    // buffer it lies in ("abc", "defg", "hi"), as libdispatch gives the leaf.
    static size_t region_sizes[3];
    __block int pieces = 0;
    dispatch_data_apply(middle, ^bool(dispatch_data_t piece_region, size_t piece_offset, const void *buffer, size_t size) {
        (void)piece_offset; (void)buffer; (void)size;
        if (pieces < 3) region_sizes[pieces] = dispatch_data_get_size(piece_region);
        pieces++;
        return true;
    });
    CHECK(pieces == 3 && region_sizes[0] == 3 && region_sizes[1] == 4 && region_sizes[2] == 2,
          "dispatch_data_apply gives each piece's whole buffer as its region (%d pieces, %zu %zu %zu)",
          pieces, region_sizes[0], region_sizes[1], region_sizes[2]);
    dispatch_data_t clipped_whole = dispatch_data_create_subrange(abc, 0, 100);
    CHECK(clipped_whole != abc && dispatch_data_get_size(clipped_whole) == 9,
          "a subrange whose length was clipped is a new object, as with libdispatch");
    dispatch_release(clipped_whole);
    dispatch_release(middle);
    dispatch_data_t tail = dispatch_data_create_subrange(abc, 7, 100);
    text = string_of(tail);
    CHECK(strcmp(text, "hi") == 0, "a subrange's length is clipped at the end");
    free(text);
    dispatch_release(tail);
    CHECK(dispatch_data_create_subrange(abc, 9, 1) == dispatch_data_empty, "a subrange past the end is the empty data");

    // A data object is a dispatch object: context and finalizer.
    dispatch_semaphore_t done = dispatch_semaphore_create(0);
    dispatch_set_context(b, done);
    dispatch_set_finalizer_f(b, signal_context);
    CHECK(dispatch_get_context(b) == done, "data objects keep a context");
    dispatch_release(b);
    dispatch_release(ab);
    dispatch_release(abc);
    CHECK(dispatch_semaphore_wait(done, in_seconds(5)) == 0, "a data object's finalizer runs after the last reference is gone");
    dispatch_release(c);
    dispatch_release(queue);
    dispatch_release(destroyed);
}

static void one_shot_io(void) {
    int fds[2];
    if (pipe(fds) != 0) { CHECK(0, "pipe"); return; }
    dispatch_queue_t queue = dispatch_get_global_queue(DISPATCH_QUEUE_PRIORITY_DEFAULT, 0);
    dispatch_semaphore_t done = dispatch_semaphore_create(0);
    __block int write_error = -1, read_error = -1;
    __block int written_all = 0;
    __block char *read_text = NULL;
    dispatch_data_t message = make("through a pipe");
    dispatch_write(fds[1], message, queue, ^(dispatch_data_t rest, int error) {
        written_all = rest == NULL;
        write_error = error;
        dispatch_semaphore_signal(done);
    });
    CHECK(dispatch_semaphore_wait(done, in_seconds(5)) == 0 && write_error == 0 && written_all,
          "dispatch_write: the handler gets NULL and 0 once all was written");
    dispatch_read(fds[0], 14, queue, ^(dispatch_data_t data, int error) {
        read_text = string_of(data);
        read_error = error;
        dispatch_semaphore_signal(done);
    });
    CHECK(dispatch_semaphore_wait(done, in_seconds(5)) == 0 && read_error == 0 && read_text &&
          strcmp(read_text, "through a pipe") == 0, "dispatch_read: the handler gets the bytes");
    free(read_text);
    dispatch_release(message);
    dispatch_release(done);
    close(fds[0]);
    close(fds[1]);
}

static void channels(void) {
    char path[] = "/tmp/conveyor-capi-io-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) { CHECK(0, "mkstemp"); return; }
    dispatch_queue_t queue = dispatch_queue_create("io.handlers", NULL);
    dispatch_semaphore_t cleaned = dispatch_semaphore_create(0), step = dispatch_semaphore_create(0);
    __block int cleanup_error = -1;

    CHECK(dispatch_io_create(7, fd, queue, ^(int error) { (void)error; }) == NULL, "an unknown channel type gives NULL");
    CHECK(dispatch_io_create_with_path(DISPATCH_IO_RANDOM, "relative/path", O_RDONLY, 0, queue, ^(int error) { (void)error; }) == NULL,
          "a relative path gives NULL");

    dispatch_io_t channel = dispatch_io_create(DISPATCH_IO_RANDOM, fd, queue, ^(int error) {
        cleanup_error = error;
        dispatch_semaphore_signal(cleaned);
    });
    CHECK(channel != NULL && dispatch_io_get_descriptor(channel) == fd, "dispatch_io_create; dispatch_io_get_descriptor");

    __block int write_done = 0, write_error = -1;
    dispatch_data_t content = make("0123456789abcdef");
    dispatch_io_write(channel, 0, content, queue, ^(bool done, dispatch_data_t rest, int error) {
        (void)rest;
        if (done) { write_done = 1; write_error = error; dispatch_semaphore_signal(step); }
    });
    CHECK(dispatch_semaphore_wait(step, in_seconds(5)) == 0 && write_done && write_error == 0, "dispatch_io_write at an offset");

    __block int barrier_saw_fd = 0;
    dispatch_io_barrier(channel, ^{
        barrier_saw_fd = dispatch_io_get_descriptor(channel) == fd;
        dispatch_semaphore_signal(step);
    });
    CHECK(dispatch_semaphore_wait(step, in_seconds(5)) == 0 && barrier_saw_fd, "dispatch_io_barrier runs, with the descriptor");

    dispatch_io_set_low_water(channel, 1);
    dispatch_io_set_high_water(channel, 4);
    dispatch_io_set_interval(channel, NSEC_PER_SEC, DISPATCH_IO_STRICT_INTERVAL);
    __block size_t calls = 0, largest = 0;
    static char collected[32];
    __block size_t length = 0;
    __block int read_error = -1;
    dispatch_io_read(channel, 4, SIZE_MAX, queue, ^(bool done, dispatch_data_t data, int error) {
        if (data) {
            size_t size = dispatch_data_get_size(data);
            if (size > largest) largest = size;
            if (size) calls++;
            dispatch_data_apply(data, ^bool(dispatch_data_t region, size_t offset, const void *buffer, size_t bytes) {
                (void)region; (void)offset;
                if (length + bytes < sizeof collected) memcpy(collected + length, buffer, bytes);
                length += bytes;
                return true;
            });
        }
        if (done) { read_error = error; dispatch_semaphore_signal(step); }
    });
    CHECK(dispatch_semaphore_wait(step, in_seconds(5)) == 0 && read_error == 0 &&
          strcmp(collected, "456789abcdef") == 0, "dispatch_io_read from an offset to the end of the file");
    CHECK(calls >= 3 && largest <= 4, "the high-water mark bounds each piece (%zu pieces, largest %zu)", calls, largest);

    // A stream channel on the same file, through the first channel.
    lseek(fd, 0, SEEK_SET);
    dispatch_semaphore_t cleaned_copy = dispatch_semaphore_create(0);
    dispatch_io_t copy = dispatch_io_create_with_io(DISPATCH_IO_STREAM, channel, queue, ^(int error) {
        (void)error;
        dispatch_semaphore_signal(cleaned_copy);
    });
    __block char *first = NULL;
    dispatch_io_read(copy, 0, 6, queue, ^(bool done, dispatch_data_t data, int error) {
        (void)error;
        if (done) { first = data ? string_of(data) : strdup(""); dispatch_semaphore_signal(step); }
    });
    CHECK(dispatch_semaphore_wait(step, in_seconds(5)) == 0 && first, "dispatch_io_create_with_io reads the same file");
    free(first);
    dispatch_io_close(copy, 0);
    dispatch_release(copy);

    // The two channels share the descriptor: the cleanup handlers run once both are closed.
    dispatch_io_close(channel, DISPATCH_IO_STOP);
    dispatch_release(channel);
    CHECK(dispatch_semaphore_wait(cleaned, in_seconds(5)) == 0 && cleanup_error == 0 &&
          dispatch_semaphore_wait(cleaned_copy, in_seconds(5)) == 0,
          "closing both channels runs both cleanup handlers, with 0");

    // A path channel on a missing file: every operation fails with ENOENT.
    __block int missing_error = 0;
    dispatch_io_t missing = dispatch_io_create_with_path(DISPATCH_IO_RANDOM, "/nonexistent/conveyor/file", O_RDONLY, 0,
                                                         queue, ^(int error) { (void)error; });
    dispatch_io_read(missing, 0, 10, queue, ^(bool done, dispatch_data_t data, int error) {
        (void)data;
        if (done) { missing_error = error; dispatch_semaphore_signal(step); }
    });
    CHECK(dispatch_semaphore_wait(step, in_seconds(5)) == 0 && missing_error == ENOENT,
          "a path channel on a missing file reports ENOENT");
    dispatch_io_close(missing, 0);
    dispatch_release(missing);

    dispatch_release(content);
    close(fd);
    unlink(path);
    dispatch_release(cleaned_copy);
    dispatch_release(cleaned);
    dispatch_release(step);
    dispatch_release(queue);
}

int main(void) {
    data_objects();
    one_shot_io();
    channels();
    // The last releases follow the handlers' returns: allow them a moment.
    for (int i = 0; i < 500 && atomic_load(&live_blocks) != 0; i++) usleep(10000);
    CHECK(atomic_load(&block_copies) > 0 && atomic_load(&live_blocks) == 0,
          "every block copied was released (%ld copies, %ld still alive)", atomic_load(&block_copies), atomic_load(&live_blocks));
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
