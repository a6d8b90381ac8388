/* files.c - the test data files of a directory, listed in name order. */
#include "support/files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_name(const void* a, const void* b) { return strcmp(a, b); }

int test_list_files(const char* dir, const char* suffix, char names[][256], int max) {
  DIR* d = opendir(dir);
  if (!d) return 0;
  size_t sl = strlen(suffix);
  int n = 0;
  for (struct dirent* e; n < max && (e = readdir(d));) {
    size_t l = strlen(e->d_name);
    if (l <= sl || strcmp(e->d_name + l - sl, suffix) != 0) continue;
    /* The result is checked, so gcc's truncation warning does not depend on
     * where the tree lives. */
    int w = snprintf(names[n], 256, "%s/%s", dir, e->d_name);
    if (w > 0 && w < 256) ++n;
  }
  closedir(d);
  qsort(names, (size_t)n, 256, by_name);
  return n;
}
