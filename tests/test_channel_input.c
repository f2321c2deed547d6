/* test_channel_input: the kernel input a read brought through a pipe,
 * FIFO or socket (a kernel write whose event names the channel, issue 25)
 * is counted apart, exactly: a part of the external input, never more,
 * the same under renumbering and sharding, and only while the channel's
 * write is the cell's latest. */
#include <stdio.h>
#include <stdlib.h>

#include "analyses/analysis.h"
#include "tests/check.h"
#include "tests/fixture.h"

/* Parses TEXT, where "kwrite" lines followed by "# from N" carry channel N
 * (the text format has no channels: the test sets the field). */
static void parse_with_channels(const char *text, struct event_list *events,
                                struct routine_table *routines, const uint32_t *channels,
                                size_t n_channels)
{
    fixture_parse(text, events, routines);
    size_t k = 0;
    for (size_t i = 0; i < events->count; i++)
        if (events->items[i].type == EVENT_KWRITE && k < n_channels)
            events->items[i].routine = channels[k++];
    CHECK_EQ(k, n_channels);
}

static void one_routine(void)
{
    /* kwrites in order: channel 7, none, channel 9, channel 7 */
    static const uint32_t channels[] = {7, 0, 9, 7};
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    parse_with_channels("thread 1\n"
                        "call consume\n"
                        "kwrite 0x1000 16\n"   /* 4 cells from channel 7 */
                        "read 0x1000 16\n"     /* 4 induced, all channel 7 */
                        "kwrite 0x1000 8\n"    /* 2 cells rewritten, no channel */
                        "read 0x1000 16\n"     /* 2 induced, external */
                        "call inner\n"
                        "kwrite 0x2000 4\n"    /* channel 9 */
                        "read 0x2000 4\n"      /* 1 induced, channel 9 */
                        "return\n"
                        "kwrite 0x3000 4\n"    /* channel 7 */
                        "write 0x3000 4\n"     /* the thread overwrites it */
                        "read 0x3000 4\n"      /* not induced */
                        "return\n",
                        &events, &routines, channels, 4);
    struct run run;
    fixture_run_events(events.items, events.count, &routines, 4, 64, 0, &run);
    const struct activation *c = run_find(&run, "consume", 1, 0);
    const struct activation *in = run_find(&run, "inner", 1, 0);
    CHECK(c && in);
    if (c && in) {
        CHECK_EQ(c->induced_external, 7);
        CHECK_EQ(c->induced_channel, 5);
        CHECK_EQ(c->channel, CHANNEL_SEVERAL);
        CHECK_EQ(in->induced_external, 1);
        CHECK_EQ(in->induced_channel, 1);
        CHECK_EQ(in->channel, 9);
    }
    /* The profiles carry it too. */
    for (size_t i = 0; run.result && i < run.result->n_profiles; i++) {
        const struct routine_profile *p = &run.result->profiles[i];
        CHECK(p->induced_channel <= p->induced_external);
    }
    run_free(&run);
    event_list_free(&events);
    routine_table_free(&routines);
}

static int same_activations(const struct run *a, const struct run *b)
{
    if (a->n_activations != b->n_activations)
        return 0;
    for (size_t i = 0; i < a->n_activations; i++) {
        const struct activation *x = &a->activations[i], *y = &b->activations[i];
        if (x->induced_external != y->induced_external ||
            x->induced_channel != y->induced_channel || x->channel != y->channel ||
            x->trms != y->trms || x->induced_channel > x->induced_external)
            return 0;
    }
    return 1;
}

/* Many calls (so that a small time limit renumbers often), each reading a
 * buffer a channel or the plain kernel refilled partly, a few calls ago. */
static void renumbered_and_sharded(void)
{
    struct event_list events = {0};
    struct routine_table routines;
    routine_table_init(&routines);
    fixture_parse("thread 1\ncall reader\nreturn\nthread 2\ncall writer\nreturn\n", &events,
                  &routines);
    uint32_t reader = events.items[1].routine, writer = events.items[4].routine;
    event_list_free(&events);
    srand(25);
    for (int i = 0; i < 4000; i++) {
        uint32_t tid = 1 + (uint32_t)(rand() % 2);
        event_list_push(&events, &(struct event){.type = EVENT_THREAD, .tid = tid});
        event_list_push(&events,
                        &(struct event){.type = EVENT_CALL, .routine = tid == 1 ? reader : writer});
        uint64_t at = 0x1000 + 4 * (uint64_t)(rand() % 64);
        uint64_t size = 4 * (uint64_t)(1 + rand() % 8);
        switch (rand() % 4) {
        case 0:
        case 1:
            event_list_push(&events, &(struct event){.type = EVENT_KWRITE, .addr = at,
                                                     .size = size,
                                                     .routine = 1 + (uint32_t)(rand() % 3)});
            break;
        case 2:
            event_list_push(&events,
                            &(struct event){.type = EVENT_KWRITE, .addr = at, .size = size});
            break;
        default:
            event_list_push(&events,
                            &(struct event){.type = EVENT_WRITE, .addr = at, .size = size});
            break;
        }
        event_list_push(&events, &(struct event){.type = EVENT_READ,
                                                 .addr = 0x1000 + 4 * (uint64_t)(rand() % 64),
                                                 .size = 16});
        event_list_push(&events, &(struct event){.type = EVENT_RETURN});
    }
    struct analysis_options plain, tight;
    analysis_options_default(&plain);
    plain.shards = 1;
    plain.threads = 0;
    struct run want;
    fixture_run_with(events.items, events.count, &routines, &plain, &want);
    uint64_t channel_input = 0;
    for (size_t i = 0; i < want.n_activations; i++)
        channel_input += want.activations[i].induced_channel;
    CHECK(channel_input > 0);
    for (unsigned shards = 1; shards <= 4; shards *= 2) {
        tight = plain;
        tight.time_limit = 16;
        tight.shards = shards;
        struct run got;
        fixture_run_with(events.items, events.count, &routines, &tight, &got);
        CHECK(got.renumberings > 10);
        CHECK(same_activations(&want, &got));
        run_free(&got);
    }
    run_free(&want);
    event_list_free(&events);
    routine_table_free(&routines);
}

int main(void)
{
    one_routine();
    renumbered_and_sharded();
    return check_report("test_channel_input");
}
