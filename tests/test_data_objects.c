/* test_data_objects: the variables of a process named from its symbols
 * (symbols/data_objects.h): this test program's own globals and statics,
 * at their addresses whatever the load bias, and not its constants,
 * thread-locals or functions; aliases, overlaps, selection and lookup. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "common/oom.h"
#include "symbols/data_objects.h"
#include "symbols/proc_maps.h"

/* What the symbols must show, and what they must not (link-time
 * optimization may make the globals local: bindings are tested apart). */
int probe_global = 1;
static long probe_static[4];
long probe_bss;
const int probe_constant = 7;
_Thread_local int probe_thread_local;

static void add(struct data_objects *o, uint64_t start, uint64_t size, const char *name,
                int global)
{
    if (o->count == o->capacity) {
        o->capacity = o->capacity ? 2 * o->capacity : 8;
        o->items = xrealloc(o->items, o->capacity * sizeof *o->items);
    }
    o->items[o->count++] = (struct data_object){start, size, xstrdup(name), xstrdup("m"), global};
}

static void own_variables(void)
{
    probe_static[1] = probe_global + probe_thread_local;  /* used, kept */
    struct memory_maps maps;
    memory_maps_init(&maps);
    struct trms_error err;
    CHECK(proc_maps_read(getpid(), &maps, &err) == 0);
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(len > 0);
    self[len > 0 ? len : 0] = '\0';
    struct data_objects o;
    data_objects_init(&o);
    data_objects_from_maps(&o, &maps, self);
    const struct data_object *g = data_objects_find(&o, (uint64_t)(uintptr_t)&probe_global);
    CHECK(g && strcmp(g->name, "probe_global") == 0 && g->size == sizeof probe_global &&
          g->start == (uint64_t)(uintptr_t)&probe_global && strcmp(g->module, self) == 0);
    const struct data_object *s = data_objects_find(&o, (uint64_t)(uintptr_t)&probe_static[3]);
    CHECK(s && strcmp(s->name, "probe_static") == 0 && s->size == sizeof probe_static);
    const struct data_object *b = data_objects_find(&o, (uint64_t)(uintptr_t)&probe_bss);
    CHECK(b && strcmp(b->name, "probe_bss") == 0);
    CHECK(data_objects_find(&o, (uint64_t)(uintptr_t)&probe_constant) == NULL);
    CHECK(data_objects_find(&o, (uint64_t)(uintptr_t)own_variables) == NULL);
    for (size_t i = 0; i < o.count; i++)
        CHECK(strcmp(o.items[i].name, "probe_thread_local") != 0 &&
              strcmp(o.items[i].name, "probe_constant") != 0);
    for (size_t i = 1; i < o.count; i++)  /* sorted, disjoint */
        CHECK(o.items[i].start >= o.items[i - 1].start + o.items[i - 1].size);
    const char *patterns[] = {"probe_*"}, *none[] = {"probe_*", "no_such_*"};
    CHECK(data_objects_select(&o, patterns, 1) == NULL);
    CHECK_EQ(o.count, 3);
    CHECK_STR(data_objects_select(&o, none, 2), "no_such_*");
    data_objects_free(&o);
    /* By name alone, before the program runs. */
    data_objects_init(&o);
    CHECK(data_objects_names_in_file(self, &o) == 0);
    const char *global[] = {"probe_global"};
    CHECK(data_objects_select(&o, global, 1) == NULL && o.count == 1);
    data_objects_free(&o);
    CHECK(data_objects_names_in_file("/nonexistent", &o) != 0);
    data_objects_free(&o);
    memory_maps_free(&maps);
}

static void sorting(void)
{
    struct data_objects o;
    data_objects_init(&o);
    add(&o, 0x3000, 8, "__environ", 1);
    add(&o, 0x1000, 16, "whole", 1);
    add(&o, 0x3000, 8, "environ", 1);   /* an alias: the plainer name wins */
    add(&o, 0x3000, 8, "_environ", 0);
    add(&o, 0x1004, 4, "inside", 1);    /* within "whole": dropped */
    add(&o, 0x100c, 8, "overlap", 1);   /* cut to start after "whole" */
    add(&o, 0x2000, 4, "local", 0);
    add(&o, 0x2000, 4, "alias", 1);     /* a global beats a file's static */
    data_objects_sort(&o);
    CHECK_EQ(o.count, 4);
    CHECK(o.count == 4 && strcmp(o.items[0].name, "whole") == 0 &&
          strcmp(o.items[1].name, "overlap") == 0 && o.items[1].start == 0x1010 &&
          o.items[1].size == 4 && strcmp(o.items[2].name, "alias") == 0 &&
          strcmp(o.items[3].name, "environ") == 0);
    CHECK(data_objects_find(&o, 0x0fff) == NULL);
    CHECK(data_objects_find(&o, 0x1000) == &o.items[0]);
    CHECK(data_objects_find(&o, 0x100f) == &o.items[0]);
    CHECK(data_objects_find(&o, 0x1013) == &o.items[1]);
    CHECK(data_objects_find(&o, 0x1014) == NULL);
    CHECK(data_objects_find(&o, 0x3007) == &o.items[3]);
    CHECK(data_objects_find(&o, 0x3008) == NULL);
    CHECK_EQ(data_objects_first_after(&o, 0x1014), 2);
    CHECK_EQ(data_objects_first_after(&o, 0x4000), 4);
    const char *patterns[] = {"*l*"};
    CHECK(data_objects_select(&o, patterns, 1) == NULL);
    CHECK(o.count == 3);  /* whole, overlap, alias */
    data_objects_free(&o);
}

int main(void)
{
    own_variables();
    sorting();
    return check_report("test_data_objects");
}
