/* air/config.h - export and version macros shared by every public header. */
#ifndef AIR_CONFIG_H_
#define AIR_CONFIG_H_

#if defined(_WIN32)
#define AIR_API
#elif defined(__GNUC__)
#define AIR_API __attribute__((visibility("default")))
#else
#define AIR_API
#endif

#define AIR_VERSION_MAJOR 0
#define AIR_VERSION_MINOR 1
#define AIR_VERSION_PATCH 0
#define AIR_VERSION_STRING "0.1.0"

#endif /* AIR_CONFIG_H_ */
