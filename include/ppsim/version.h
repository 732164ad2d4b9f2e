/* ppsim's version, in one place: the numbers, and the string made from them. */
#ifndef PPSIM_VERSION_H
#define PPSIM_VERSION_H

#define PP_VERSION_MAJOR 0
#define PP_VERSION_MINOR 1
#define PP_VERSION_PATCH 0

#define PP_VERSION_STR_(x)  #x
#define PP_VERSION_XSTR_(x) PP_VERSION_STR_(x)
/* "MAJOR.MINOR.PATCH", as `ppsim --version` prints it */
#define PP_VERSION                                                                                 \
	PP_VERSION_XSTR_(PP_VERSION_MAJOR)                                                         \
	"." PP_VERSION_XSTR_(PP_VERSION_MINOR) "." PP_VERSION_XSTR_(PP_VERSION_PATCH)

#endif
