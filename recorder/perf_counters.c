/* perf_counters: probe perf_event_open (see perf_counters.h). */
#include "recorder/perf_counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int perf_counters_available(char *why, size_t size)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.disabled = 1;
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
    if (fd < 0) {
        snprintf(why, size, "perf_event_open: %s", strerror(errno));
        return 0;
    }
    close((int)fd);
    return 1;
}
