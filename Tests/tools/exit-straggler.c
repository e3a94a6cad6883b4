/* ExitTests' LD_PRELOAD library: a thread that is still ending while the tool exits.
 *
 * Every EVP_MD_CTX (digest context) the tool frees is held back, as a thread preempted
 * between handing its result over and releasing its SHA-256 context would hold it, and
 * freed only once the tool's exit has begun: from this library's atexit handler, which
 * is registered when the library loads, before libcrypto is first initialised, so it runs
 * after any handler libcrypto registers (handlers run last-registered first). There it
 * also checks that libcrypto is still whole: OPENSSL_init_crypto succeeds (it fails once
 * OPENSSL_cleanup ran) and SHA-256 of "abc" is its known value. It appends one line to
 * the file named by EXIT_STRAGGLER_LOG (a process the tool starts inherits the library and
 * appends its own line):
 *   PROGRAM held N init R sha256 HEX
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_HELD 4096
static void *held[MAX_HELD];
static int held_count;
static void (*real_free)(void *);

void EVP_MD_CTX_free(void *ctx) {
    if (!real_free) real_free = (void (*)(void *))dlsym(RTLD_NEXT, "EVP_MD_CTX_free");
    if (ctx && held_count < MAX_HELD) { held[held_count++] = ctx; return; }
    real_free(ctx);
}

static void at_exit(void) {
    int freed = held_count;
    if (real_free) for (int i = 0; i < held_count; i++) real_free(held[i]);
    int (*init)(uint64_t, const void *) = (int (*)(uint64_t, const void *))dlsym(RTLD_DEFAULT, "OPENSSL_init_crypto");
    int initialised = init ? init(0, NULL) : -1;
    char hex[65] = "none";
    if (initialised == 1) {
        const void *(*sha256)(void) = (const void *(*)(void))dlsym(RTLD_DEFAULT, "EVP_sha256");
        int (*digest)(const void *, size_t, unsigned char *, unsigned int *, const void *, void *) =
            (int (*)(const void *, size_t, unsigned char *, unsigned int *, const void *, void *))dlsym(RTLD_DEFAULT, "EVP_Digest");
        unsigned char out[32];
        unsigned int length = 0;
        if (sha256 && digest && digest("abc", 3, out, &length, sha256(), NULL) == 1 && length == 32)
            for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", out[i]);
    }
    const char *path = getenv("EXIT_STRAGGLER_LOG");
    FILE *log = path ? fopen(path, "a") : NULL;
    if (log) { fprintf(log, "%s held %d init %d sha256 %s\n", program_invocation_short_name, freed, initialised, hex); fclose(log); }
}

__attribute__((constructor)) static void load(void) { atexit(at_exit); }
