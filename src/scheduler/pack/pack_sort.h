/* pack_sort.h - sorting spans by offset, for the placers that keep spans of
 * different widths (32-bit units in pack_place.c, bytes in pack_window.c).
 *
 * A macro rather than one function on a wide type: the 32-bit spans exist to keep
 * large plans' state in cache, and qsort's indirect comparisons would dominate
 * (the neighbour counts are small). Quicksort on offsets, median of three,
 * recursing into the smaller side, with an insertion-sort finish. */
#ifndef AIR_SCHEDULER_PACK_PACK_SORT_H_
#define AIR_SCHEDULER_PACK_PACK_SORT_H_

#include <stdint.h>

/* Defines `static void FN(SPAN* s, uint32_t n)` sorting s[0..n) by the field
 * `off` (of type OFF) ascending; not stable. */
#define PK_DEFINE_SORT_BY_OFF(FN, SPAN, OFF)                                          \
  static void FN(SPAN* s, uint32_t n) {                                               \
    while (n > 16) {                                                                  \
      OFF a = s[0].off, b = s[n / 2].off, c = s[n - 1].off;                           \
      OFF pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b)); \
      uint32_t i = 0, j = n - 1;                                                      \
      for (;;) {                                                                      \
        while (s[i].off < pivot) ++i;                                                 \
        while (s[j].off > pivot) --j;                                                 \
        if (i >= j) break;                                                            \
        SPAN t = s[i];                                                                \
        s[i] = s[j];                                                                  \
        s[j] = t;                                                                     \
        ++i;                                                                          \
        --j;                                                                          \
      }                                                                               \
      uint32_t left = j + 1;                                                          \
      if (left < n - left) {                                                          \
        FN(s, left);                                                                  \
        s += left;                                                                    \
        n -= left;                                                                    \
      } else {                                                                        \
        FN(s + left, n - left);                                                       \
        n = left;                                                                     \
      }                                                                               \
    }                                                                                 \
    for (uint32_t i = 1; i < n; ++i) {                                                \
      SPAN t = s[i];                                                                  \
      uint32_t j = i;                                                                 \
      for (; j > 0 && s[j - 1].off > t.off; --j) s[j] = s[j - 1];                     \
      s[j] = t;                                                                       \
    }                                                                                 \
  }

#endif /* AIR_SCHEDULER_PACK_PACK_SORT_H_ */
