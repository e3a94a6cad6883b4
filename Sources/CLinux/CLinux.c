#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <unistd.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/ioctl.h>
#include <spawn.h>
#include <linux/fs.h>
#include "CLinux.h"

int vfs_renameat_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
    return renameat2(olddirfd, oldpath, newdirfd, newpath, RENAME_NOREPLACE);
}

int vfs_fstatfs_type(int fd, unsigned long *type) {
    struct statfs info;
    if (fstatfs(fd, &info) != 0) return -1;
    *type = (unsigned long)info.f_type;
    return 0;
}

int vfs_set_direct_io(int fd, int on) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, on ? (flags | O_DIRECT) : (flags & ~O_DIRECT));
}

int vfs_open_path_nofollow(int dirfd, const char *path) {
    return openat(dirfd, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
}


long long vfs_seek_data(int fd, long long offset) {
    return lseek(fd, offset, SEEK_DATA);
}

long long vfs_seek_hole(int fd, long long offset) {
    return lseek(fd, offset, SEEK_HOLE);
}

int vfs_mount_id(int dirfd, const char *name, unsigned long long *id) {
    struct statx info;
    int flags = name[0] == 0 ? AT_EMPTY_PATH : (AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT);
    if (statx(dirfd, name, flags, STATX_MNT_ID, &info) != 0) return -1;
    if (!(info.stx_mask & STATX_MNT_ID)) { errno = ENOSYS; return -1; }
    *id = (unsigned long long)info.stx_mnt_id;
    return 0;
}

int vfs_open_tmpfile(const char *folder, unsigned int mode) {
    return open(folder, O_TMPFILE | O_WRONLY | O_CLOEXEC, (mode_t)mode);
}

int vfs_link_tmpfile(int fd, const char *path) {
    if (linkat(fd, "", AT_FDCWD, path, AT_EMPTY_PATH) == 0) return 0;
    if (errno != ENOENT && errno != EPERM) return -1;  /* ENOENT: no CAP_DAC_READ_SEARCH */
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

int vfs_get_inode_flags(int fd, int *flags) {
    return ioctl(fd, FS_IOC_GETFLAGS, flags);
}

int vfs_set_nodump(int fd) {
    int flags = 0;
    if (ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0) return -1;
    if (flags & FS_NODUMP_FL) return 0;
    flags |= FS_NODUMP_FL;
    return ioctl(fd, FS_IOC_SETFLAGS, &flags);
}

int vfs_nodump_flag(void) {
    return FS_NODUMP_FL;
}

int vfs_posix_spawn_setsid_flag(void) {
    return POSIX_SPAWN_SETSID;
}

int vfs_malloc_keep_freed(int mmap_threshold, int trim_threshold) {
    return mallopt(M_MMAP_THRESHOLD, mmap_threshold) && mallopt(M_TRIM_THRESHOLD, trim_threshold);
}

int vfs_sync_file_range(int fd, long long offset, long long count, int wait) {
    unsigned int flags = SYNC_FILE_RANGE_WRITE;
    if (wait) flags |= SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WAIT_AFTER;
    return sync_file_range(fd, (off64_t)offset, (off64_t)count, flags);
}
