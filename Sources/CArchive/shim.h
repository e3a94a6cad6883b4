#ifndef VFS_CARCHIVE_SHIM_H
#define VFS_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#endif
