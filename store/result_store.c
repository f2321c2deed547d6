#include "store/result_store.h"

#include <inttypes.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyses/analysis_parts.h"
#include "common/byte_buffer.h"
#include "common/oom.h"
#include "store/result_codec.h"
#include "store/store_env.h"
#include "store/store_internal.h"
#include "store/store_space.h"
#include "store/store_map.h"

struct result_store {
    MDB_env *env;
    MDB_dbi results;
    char *path;
};

static int lmdb_error(struct result_store *s, struct trms_error *err, const char *what, int rc)
{
    const char *damage = store_damage_cause(rc);
    if (damage)
        return error_set(err, "%s: %s: the result store is damaged (%s)", s->path, what, damage);
    return error_set(err, "%s: %s: %s", s->path, what, mdb_strerror(rc));
}

#define CONTEXTS_SUFFIX "/contexts"
#define ANALYSES_PART "/analyses="

unsigned result_key_analyses(const struct result_key *key)
{
    return key->analyses ? key->analyses : ANALYSIS_ALL;
}

/* PREFIX "cell=N/line=M[/events=F-T][/analyses=rms,reuse][/contexts]": a
 * result, and beside it when it was stored (T "end" when 0; the analyses
 * only when not all of them, so that keys of every part are those stored
 * before there was a choice). */
void result_key_string(char *buf, size_t len, const char *prefix, const struct result_key *k)
{
    int n = snprintf(buf, len, "%scell=%" PRIu64 "/line=%" PRIu64, prefix, k->cell_size,
                     k->line_size);
    if (k->from || k->to) {
        char to[24] = "end";
        if (k->to)
            snprintf(to, sizeof to, "%" PRIu64, k->to);
        n += snprintf(buf + n, len - (size_t)n, "/events=%" PRIu64 "-%s", k->from, to);
    }
    if (result_key_analyses(k) != ANALYSIS_ALL) {
        char parts[ANALYSIS_PARTS_TEXT_MAX];
        n += snprintf(buf + n, len - (size_t)n, ANALYSES_PART "%s",
                      analysis_parts_text(k->analyses, parts));
    }
    if (k->contexts)
        snprintf(buf + n, len - (size_t)n, CONTEXTS_SUFFIX);
}

static int parse_sizes_and_window(const char *str, struct result_key *k);

int result_key_parse(const char *whole, const char *prefix, struct result_key *k)
{
    *k = (struct result_key){0};
    size_t n = strlen(prefix);
    if (strncmp(whole, prefix, n) != 0)
        return -1;
    whole += n;
    char str[128];
    size_t len = strlen(whole), suffix = strlen(CONTEXTS_SUFFIX);
    if (len >= sizeof str)
        return -1;
    memcpy(str, whole, len + 1);
    if (len > suffix && strcmp(str + len - suffix, CONTEXTS_SUFFIX) == 0) {
        k->contexts = 1;
        str[len - suffix] = '\0';
    }
    char *analyses = strstr(str, ANALYSES_PART);
    if (analyses) {
        unsigned parts;
        if (analysis_parts_parse(analyses + strlen(ANALYSES_PART), &parts) != 0 || !parts)
            return -1;
        k->analyses = parts == ANALYSIS_ALL ? 0 : parts;
        *analyses = '\0';
    }
    return parse_sizes_and_window(str, k);
}

/* "cell=N/line=M[/events=F-T]" into K. */
static int parse_sizes_and_window(const char *str, struct result_key *k)
{
    int used = 0;
    if (sscanf(str, "cell=%" SCNu64 "/line=%" SCNu64 "%n", &k->cell_size, &k->line_size,
               &used) != 2 || used == 0)
        return -1;
    str += used;
    if (*str == '\0')
        return 0;
    used = 0;
    if (sscanf(str, "/events=%" SCNu64 "-%n", &k->from, &used) != 1 || used == 0)
        return -1;
    str += used;
    if (strcmp(str, "end") == 0)
        return 0;
    used = 0;
    if (sscanf(str, "%" SCNu64 "%n", &k->to, &used) != 1 || str[used] != '\0')
        return -1;
    return 0;
}

int result_store_open(const char *rec_path, int writable, struct result_store **out,
                      struct trms_error *err)
{
    struct result_store *s = xcalloc(1, sizeof *s);
    int answer = -1;
    int rc = store_env_open(rec_path, writable, &s->env, &s->path, err);
    if (rc == STORE_ENV_ABSENT) {
        error_set(err, "%s: no analysis stored yet; run `trms analyze %s` first", rec_path,
                  rec_path);
        answer = RESULT_STORE_NONE;
        goto fail;
    }
    if (rc == STORE_ENV_DAMAGED)
        answer = RESULT_STORE_DAMAGED;
    if (rc != 0)
        goto fail;
    MDB_txn *txn;
    if ((rc = store_txn_begin(s->env, writable ? 0 : MDB_RDONLY, &txn)) != 0) {
        lmdb_error(s, err, "cannot read the result store", rc);
        goto fail;
    }
    rc = mdb_dbi_open(txn, "results", writable ? MDB_CREATE : 0, &s->results);
    if (rc == MDB_NOTFOUND) {  /* the environment holds only routine names */
        mdb_txn_abort(txn);
        error_set(err, "%s: no analysis stored yet; run `trms analyze %s` first", rec_path,
                  rec_path);
        answer = RESULT_STORE_NONE;
        goto fail;
    }
    if (rc != 0)
        mdb_txn_abort(txn);
    else
        rc = mdb_txn_commit(txn); /* frees TXN even when it fails */
    if (rc != 0) {
        if (writable)  /* creating the database is a write */
            store_write_error(s->path, rc, "opening the result store", 0, err);
        else
            lmdb_error(s, err, "cannot read the result store", rc);
        goto fail;
    }
    *out = s;
    return 0;
fail:
    result_store_close(s);
    return answer;
}

MDB_dbi result_store_dbi(const struct result_store *s)
{
    return s->results;
}

MDB_env *result_store_env(const struct result_store *s)
{
    return s->env;
}

const char *result_store_path(const struct result_store *s)
{
    return s->path;
}

void result_store_close(struct result_store *s)
{
    if (!s)
        return;
    store_env_close(s->env);
    free(s->path);
    free(s);
}

int result_store_save(struct result_store *s, const struct analysis_result *r,
                      struct trms_error *err)
{
    struct result_key whole = {.cell_size = r->cell_size, .line_size = r->line_size,
                               .contexts = r->n_contexts > 0,
                               .analyses = r->analyses == ANALYSIS_ALL ? 0 : r->analyses};
    return result_store_save_key(s, r, &whole, err);
}

int result_store_save_key(struct result_store *s, const struct analysis_result *r,
                          const struct result_key *rk, struct trms_error *err)
{
    struct byte_buffer blob = {0};
    result_encode(r, &blob);
    char key[128], when_key[128], when[32];
    result_key_string(key, sizeof key, RESULT_PREFIX, rk);
    result_key_string(when_key, sizeof when_key, ANALYZED_PREFIX, rk);
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    /* Room first: a full disk is said before anything is written. */
    uint64_t need = blob.len + strlen(key) + 4096;
    if (store_map_room(s->env, s->path, need, err) != 0 ||
        store_space_reserve(s->env, s->path, need, "writing the result", err) != 0) {
        byte_buffer_free(&blob);
        return -1;
    }
    MDB_txn *txn;
    int rc = store_txn_begin(s->env, 0, &txn);
    if (rc != 0) {
        byte_buffer_free(&blob);
        return store_write_error(s->path, rc, "writing the result", need, err);
    }
    MDB_val k = {strlen(key), key}, v = {blob.len, blob.data};
    MDB_val lk = {strlen(LATEST_KEY), LATEST_KEY}, lv = {strlen(key), key};
    MDB_val wk = {strlen(when_key), when_key}, wv = {strlen(when), when};
    if ((rc = mdb_put(txn, s->results, &k, &v, 0)) != 0 ||
        (rc = mdb_put(txn, s->results, &lk, &lv, 0)) != 0 ||
        (rc = mdb_put(txn, s->results, &wk, &wv, 0)) != 0 ||
        (rc = checkpoint_drop(txn, rk)) != 0) {
        mdb_txn_abort(txn);
        byte_buffer_free(&blob);
        return store_write_error(s->path, rc, "writing the result", need, err);
    }
    rc = mdb_txn_commit(txn);
    byte_buffer_free(&blob);
    if (rc != 0)
        return store_write_error(s->path, rc, "writing the result", need, err);
    return 0;
}

int result_store_load(struct result_store *s, uint64_t cell_size, uint64_t line_size,
                      struct analysis_result **out, struct trms_error *err)
{
    struct result_key whole = {.cell_size = cell_size, .line_size = line_size};
    return result_store_load_key(s, &whole, out, err);
}

/* The most recently stored result with calling contexts when WANT has
 * them, and of WANT's analyses when it names some (the latest pointer
 * breaks ties of the one-second dates). */
struct newest_with_contexts {
    const struct result_key *want;
    struct stored_result_info best;
    int found;
};

static int consider(void *ctx, const struct stored_result_info *info)
{
    struct newest_with_contexts *n = ctx;
    if ((n->want->contexts && !info->key.contexts) ||
        (n->want->analyses && result_key_analyses(&info->key) != n->want->analyses))
        return 0;
    int newer = !n->found || strcmp(info->analyzed, n->best.analyzed) > 0 ||
                (strcmp(info->analyzed, n->best.analyzed) == 0 && info->latest);
    if (newer) {
        n->best = *info;
        n->found = 1;
    }
    return 0;
}

int result_store_load_key(struct result_store *s, struct result_key *rk,
                          struct analysis_result **out, struct trms_error *err)
{
    if (rk->cell_size == 0 && rk->line_size == 0 && (rk->contexts || rk->analyses)) {
        struct result_key want = *rk;
        struct newest_with_contexts n = {.want = &want};
        if (result_store_list(s, consider, &n, err) != 0)
            return -1;
        char parts[ANALYSIS_PARTS_TEXT_MAX];
        if (!n.found && !want.analyses)
            return error_set(err, "%s: no analysis with calling contexts stored; run "
                                  "`trms analyze --contexts` first", s->path);
        if (!n.found)
            return error_set(err, "%s: no result of analyses %s%s stored; run `trms analyze "
                                  "--analyses %s%s` first", s->path,
                             analysis_parts_text(want.analyses, parts),
                             want.contexts ? " with calling contexts" : "", parts,
                             want.contexts ? " --contexts" : "");
        *rk = n.best.key;
    }
    uint64_t cell_size = rk->cell_size, line_size = rk->line_size;
    MDB_txn *txn;
    int rc = store_txn_begin(s->env, MDB_RDONLY, &txn);
    if (rc != 0)
        return lmdb_error(s, err, "cannot read the result store", rc);
    char key[128];
    MDB_val k, v;
    if (cell_size == 0 && line_size == 0) {
        MDB_val lk = {strlen(LATEST_KEY), LATEST_KEY};
        rc = mdb_get(txn, s->results, &lk, &v);
        if (rc == 0 && v.mv_size < sizeof key) {
            memcpy(key, v.mv_data, v.mv_size);
            key[v.mv_size] = '\0';
        } else if (rc == 0) {
            rc = MDB_CORRUPTED;
        }
        if (rc == 0 && result_key_parse(key, RESULT_PREFIX, rk) != 0)
            rc = MDB_CORRUPTED;
    } else {
        result_key_string(key, sizeof key, RESULT_PREFIX, rk);
    }
    if (rc == 0) {
        k = (MDB_val){strlen(key), key};
        rc = mdb_get(txn, s->results, &k, &v);
    }
    if (rc == MDB_NOTFOUND) {
        mdb_txn_abort(txn);
        char window[64] = "";
        if (rk->from || rk->to)
            snprintf(window, sizeof window, " over events %" PRIu64 " to %" PRIu64, rk->from,
                     rk->to);
        char parts[ANALYSIS_PARTS_TEXT_MAX], analyses[48] = "";
        if (result_key_analyses(rk) != ANALYSIS_ALL)
            snprintf(analyses, sizeof analyses, " of analyses %s",
                     analysis_parts_text(rk->analyses, parts));
        if (cell_size || line_size)
            return error_set(err, "%s: no result for cell size %" PRIu64 " and line size %" PRIu64
                                  "%s%s%s; run `trms analyze` with those options first",
                             s->path, cell_size, line_size, window, analyses,
                             rk->contexts ? " with calling contexts" : "");
        return error_set(err, "%s: no analysis stored yet", s->path);
    }
    if (rc != 0) {
        mdb_txn_abort(txn);
        return lmdb_error(s, err, "cannot read the result", rc);
    }
    struct trms_error inner;
    *out = result_decode(v.mv_data, v.mv_size, &inner);
    mdb_txn_abort(txn);
    if (!*out)
        return error_set(err, "%s: %s", s->path, inner.message);
    return 0;
}

/* Copies an LMDB value into BUF as a string; "" when it does not fit. */
static void value_string(const MDB_val *v, char *buf, size_t size)
{
    size_t n = v->mv_size < size ? v->mv_size : 0;
    memcpy(buf, v->mv_data, n);
    buf[n] = '\0';
}

static int compare_options(const void *a, const void *b)
{
    const struct result_key *x = &((const struct stored_result_info *)a)->key,
                            *y = &((const struct stored_result_info *)b)->key;
    /* every part first, then the fewer the later */
    const uint64_t xs[] = {x->cell_size, x->line_size, x->from, x->to, (uint64_t)x->contexts,
                           ANALYSIS_ALL - result_key_analyses(x)},
                   ys[] = {y->cell_size, y->line_size, y->from, y->to, (uint64_t)y->contexts,
                           ANALYSIS_ALL - result_key_analyses(y)};
    for (int i = 0; i < 6; i++)
        if (xs[i] != ys[i])
            return xs[i] < ys[i] ? -1 : 1;
    return 0;
}

int result_store_list(struct result_store *s,
                      int (*fn)(void *ctx, const struct stored_result_info *info), void *ctx,
                      struct trms_error *err)
{
    MDB_txn *txn;
    int rc = store_txn_begin(s->env, MDB_RDONLY, &txn);
    if (rc != 0)
        return lmdb_error(s, err, "cannot read the result store", rc);
    char latest[128] = "";
    MDB_val lk = {strlen(LATEST_KEY), LATEST_KEY}, v;
    if (mdb_get(txn, s->results, &lk, &v) == 0)
        value_string(&v, latest, sizeof latest);

    /* Keys sort as bytes ("cell=16" before "cell=4"): collect, then sort. */
    struct stored_result_info *infos = NULL;
    size_t n = 0;
    MDB_cursor *cur;
    if ((rc = mdb_cursor_open(txn, s->results, &cur)) != 0) {
        mdb_txn_abort(txn);
        return lmdb_error(s, err, "cannot read the result store", rc);
    }
    MDB_val k = {strlen(RESULT_PREFIX), RESULT_PREFIX};
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        char key[128];
        value_string(&k, key, sizeof key);
        struct stored_result_info info = {0};
        if (strncmp(key, RESULT_PREFIX, strlen(RESULT_PREFIX)) != 0)
            break;  /* past the results */
        if (result_key_parse(key, RESULT_PREFIX, &info.key) != 0)
            continue;
        info.latest = strcmp(key, latest) == 0;
        char when_key[128];
        result_key_string(when_key, sizeof when_key, ANALYZED_PREFIX, &info.key);
        MDB_val wk = {strlen(when_key), when_key}, wv;
        if (mdb_get(txn, s->results, &wk, &wv) == 0)
            value_string(&wv, info.analyzed, sizeof info.analyzed);
        infos = xrealloc(infos, (n + 1) * sizeof *infos);
        infos[n++] = info;
    }
    mdb_cursor_close(cur);
    mdb_txn_abort(txn);
    if (rc != 0 && rc != MDB_NOTFOUND) {
        free(infos);
        return lmdb_error(s, err, "cannot read the result store", rc);
    }
    if (n > 1)
        qsort(infos, n, sizeof *infos, compare_options);
    int answer = 0;
    for (size_t i = 0; i < n && answer == 0; i++)
        answer = fn(ctx, &infos[i]);
    free(infos);
    return answer;
}
