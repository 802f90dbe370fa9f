/* replay_main.c — runs a libFuzzer target over every file of a corpus
 * directory (or the files named), without libFuzzer, so ctest replays the
 * saved inputs in every build, sanitizers included. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            buf = realloc(buf, cap);
            if (!buf)
                abort();
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        if (n == 0)
            break;
        len += n;
    }
    fclose(f);
    /* Copy to an exact-size buffer so ASan sees reads past the end. */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact)
        abort();
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad += run_file(argv[i]);
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            perror(argv[i]);
            return 1;
        }
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            bad += run_file(path);
            files++;
        }
        closedir(d);
    }
    printf("replayed %d inputs\n", files);
    return bad ? 1 : 0;
}
