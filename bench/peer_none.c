/*
 * peer_none.c — the peer interface when the benchmark is built without oneDNN: nothing to run.
 */
#define _GNU_SOURCE
#include "peer.h"

const char *peer_name(void) { return "oneDNN"; }
peer_state peer_init(const char *max_isa, bool *capped)
{
    (void)max_isa;
    *capped = false;
    return PEER_NOT_BUILT;
}
const char *peer_version(void) { return "not built"; }

peer_run *peer_setup(const peer_problem *pp, char *impl, size_t impl_size, char *note, size_t note_size)
{
    (void)pp;
    if (impl_size)
        impl[0] = 0;
    if (note_size)
        note[0] = 0;
    return NULL;
}

void peer_exec(peer_run *r) { (void)r; }
void peer_destroy(peer_run *r) { (void)r; }
void peer_fini(void) {}
