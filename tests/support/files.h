/* files.h - the test data files of a directory, listed in name order. */
#ifndef AIR_TESTS_SUPPORT_FILES_H_
#define AIR_TESTS_SUPPORT_FILES_H_

/* Fills names[0..] with "dir/name" for each file of `dir` whose name ends in
 * `suffix` (".mlir"), sorted by strcmp, and returns how many (at most `max`; 0
 * when the directory cannot be opened). A path longer than 255 bytes is left
 * out: a checkout that deep would otherwise truncate names silently. */
int test_list_files(const char* dir, const char* suffix, char names[][256], int max);

#endif /* AIR_TESTS_SUPPORT_FILES_H_ */
