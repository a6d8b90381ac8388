/* fuzz_driver.c - runs fuzz inputs without libFuzzer, as an ordinary test.
 *
 * usage: fuzz_parse_corpus PATH...   (files, or directories searched recursively)
 * Each file is one input to air_fuzz_parse_one(). Its name is printed first, so
 * when a check traps the last name in the test log is the culprit.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_parse.h"

static int run_file(const char* path, size_t* count) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: error: cannot open\n", path);
    return 1;
  }
  unsigned char* data = NULL;
  size_t length = 0, capacity = 0;
  for (;;) {
    if (length == capacity) {
      capacity = capacity ? capacity * 2 : 4096;
      unsigned char* nd = realloc(data, capacity);
      if (!nd) {
        free(data);
        fclose(f);
        fprintf(stderr, "%s: error: out of memory\n", path);
        return 1;
      }
      data = nd;
    }
    size_t n = fread(data + length, 1, capacity - length, f);
    length += n;
    if (n == 0) break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(data);
    fprintf(stderr, "%s: error: read error\n", path);
    return 1;
  }
  printf("%s\n", path);
  fflush(stdout);
  air_fuzz_parse_one(data, length);
  free(data);
  ++*count;
  return 0;
}

static int run_path(const char* path, size_t* count, int top) {
  struct stat st;
  if (stat(path, &st) != 0) {
    if (!top) return 0; /* a dangling link inside a corpus is not worth failing on */
    fprintf(stderr, "%s: error: no such file or directory\n", path);
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) return run_file(path, count);
  DIR* dir = opendir(path);
  if (!dir) {
    fprintf(stderr, "%s: error: cannot open directory\n", path);
    return 1;
  }
  int failed = 0;
  struct dirent* e;
  while ((e = readdir(dir)) != NULL) {
    if (e->d_name[0] == '.') continue; /* ., .. and hidden files */
    size_t n = strlen(path) + strlen(e->d_name) + 2;
    char* child = malloc(n);
    if (!child) {
      failed = 1;
      break;
    }
    snprintf(child, n, "%s/%s", path, e->d_name);
    failed |= run_path(child, count, 0);
    free(child);
  }
  closedir(dir);
  return failed;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s PATH...\n", argv[0]);
    return 2;
  }
  size_t count = 0;
  int failed = 0;
  for (int i = 1; i < argc; ++i) failed |= run_path(argv[i], &count, 1);
  printf("%zu inputs ran\n", count);
  if (count == 0) {
    fprintf(stderr, "error: no inputs found\n");
    return 1;
  }
  return failed ? 1 : 0;
}
