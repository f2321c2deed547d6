#include "tools/output_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/stop_signals.h"
#include "common/visible.h"

int output_file_open(struct output_file *o, const char *path, int text, struct trms_error *err)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    if (!path) {
        /* Standard output on a terminal escapes already (main()). */
        o->fp = stdout;
        if (text && fileno(stdout) >= 0 && (o->fp = visible_stream(stdout, 0)) != NULL)
            o->raw = stdout;
        if (!o->fp)
            o->fp = stdout;
        return 0;
    }
    size_t len = strlen(path) + 32;
    o->tmp = xmalloc(len);
    snprintf(o->tmp, len, "%s.tmp-%ld", path, (long)getpid());
    stop_signals_remove_on_exit(o->tmp);  /* before it exists: a stop never leaves it */
    FILE *fp = fopen(o->tmp, "w");
    if (!fp) {
        stop_signals_remove_on_exit(NULL);
        error_set(err, "%s: cannot create: %s", path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    o->fp = fp;
    if (text && (o->fp = visible_stream(fp, 1)) != NULL)
        o->raw = fp;
    if (!o->fp)
        o->fp = fp;
    return 0;
}

int output_file_close(struct output_file *o, int rc, struct trms_error *err)
{
    const char *name = o->path ? o->path : "<stdout>";
    int failed = fflush(o->fp) != 0 || ferror(o->fp);
    int e = errno;
    if (o->fp != stdout && fclose(o->fp) != 0)  /* (an escaping stream closes its file) */
        failed = 1, e = errno;
    if (!o->path && o->raw && (fflush(stdout) != 0 || ferror(stdout)))
        failed = 1, e = errno;
    if (failed && rc == 0)
        rc = error_set(err, "%s: cannot write: %s", name, strerror(e));
    if (o->tmp) {
        if (rc == 0 && stop_signals_rename(o->tmp, o->path) != 0)
            rc = error_set(err, "%s: cannot create: %s", o->path, strerror(errno));
        if (rc != 0)
            unlink(o->tmp);
        stop_signals_remove_on_exit(NULL);
        free(o->tmp);
    }
    memset(o, 0, sizeof *o);
    return rc;
}
