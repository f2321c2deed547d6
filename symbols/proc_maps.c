/* proc_maps: /proc/PID/maps (proc_maps.h). */
#include "symbols/proc_maps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int proc_maps_parse_line(char *line, struct map_entry *e)
{
    /* START-END PERMS OFFSET DEV INODE [PATH] */
    char perms[8];
    int path_at = -1;
    uint64_t inode;
    line[strcspn(line, "\n")] = '\0';
    *e = (struct map_entry){0};
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %" SCNu64 " %n", &e->start,
               &e->end, perms, &e->offset, &inode, &path_at) < 5 ||
        strlen(perms) < 3)
        return -1;
    e->prot = (perms[0] == 'r' ? MAPS_PROT_R : 0) | (perms[1] == 'w' ? MAPS_PROT_W : 0) |
              (perms[2] == 'x' ? MAPS_PROT_X : 0);
    if (path_at < 0 || line[path_at] != '/')
        return 1;
    e->path = line + path_at;
    return 0;
}

int proc_maps_read(pid_t pid, struct memory_maps *maps, struct trms_error *err)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return error_set(err, "%s: %s", path, strerror(errno));
    memory_maps_free(maps);
    memory_maps_init(maps);
    char *line = NULL;
    size_t size = 0;
    while (getline(&line, &size, f) > 0) {
        struct map_entry e;
        if (proc_maps_parse_line(line, &e) == 0)
            memory_maps_add(maps, &e);
    }
    free(line);
    fclose(f);
    return 0;
}
