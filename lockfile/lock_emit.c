/* lock_emit.c — libyaml's emitter writing one YAML document into a strbuf,
 * with the settings of the lock's byte form (lock_write.c): UTF-8 printed as
 * is, no folding, indent 2, LF breaks. Both YAML writers of the project use
 * it: the lock (lock_write.c) and the catalog entry base inspect writes
 * (base/base_inspect_write.c). Decides no quoting: the caller names each
 * scalar's style. An event that cannot be built (invalid UTF-8) or emitted
 * marks the emitter failed; later calls do nothing, and lock_emit_end()
 * says so. */
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "lock.h"

struct lock_emit {
    yaml_emitter_t em;
    bool failed;
};

static int to_strbuf(void *data, unsigned char *buf, size_t n)
{
    sb_add(data, buf, n);
    return 1;
}

/* Emits the event `ok` says was built (the emitter frees it either way). */
static void put(lock_emit *e, yaml_event_t *ev, int ok)
{
    if (!ok || e->failed) {
        if (ok)
            yaml_event_delete(ev);
        e->failed = true;
        return;
    }
    e->failed = !yaml_emitter_emit(&e->em, ev);
}

lock_emit *lock_emit_begin(strbuf *out)
{
    lock_emit *e = xcalloc(1, sizeof *e);
    yaml_emitter_initialize(&e->em);
    yaml_emitter_set_output(&e->em, to_strbuf, out);
    yaml_emitter_set_unicode(&e->em, 1);
    yaml_emitter_set_width(&e->em, -1);
    yaml_emitter_set_indent(&e->em, 2);
    yaml_emitter_set_break(&e->em, YAML_LN_BREAK);
    yaml_event_t ev;
    put(e, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
    put(e, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
    return e;
}

void lock_emit_scalar(lock_emit *e, const char *s, bool quoted)
{
    yaml_event_t ev;
    put(e, &ev,
        yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), !quoted,
                                     quoted,
                                     quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
                                            : YAML_PLAIN_SCALAR_STYLE));
}

void lock_emit_open(lock_emit *e, bool map, bool flow)
{
    yaml_event_t ev;
    if (map)
        put(e, &ev, yaml_mapping_start_event_initialize(
                        &ev, NULL, NULL, 1, flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE));
    else
        put(e, &ev, yaml_sequence_start_event_initialize(
                        &ev, NULL, NULL, 1, flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE));
}

void lock_emit_close(lock_emit *e, bool map)
{
    yaml_event_t ev;
    put(e, &ev, map ? yaml_mapping_end_event_initialize(&ev) : yaml_sequence_end_event_initialize(&ev));
}

bool lock_emit_end(lock_emit *e)
{
    yaml_event_t ev;
    put(e, &ev, yaml_document_end_event_initialize(&ev, 1));
    put(e, &ev, yaml_stream_end_event_initialize(&ev));
    bool ok = !e->failed && yaml_emitter_flush(&e->em);
    yaml_emitter_delete(&e->em);
    free(e);
    return ok;
}
