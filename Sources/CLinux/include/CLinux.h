#ifndef VFS_CLINUX_H
#define VFS_CLINUX_H
// Linux calls and constants that Swift's Glibc module leaves out because they sit
// behind _GNU_SOURCE or in headers it does not include (sys/vfs.h). Each is a plain
// call that returns -1 and sets errno like the call it wraps.

/// renameat2(..., RENAME_NOREPLACE): never replaces an existing entry.
int vfs_renameat_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);

/// fstatfs(2)'s f_type (the file system's magic number) into *type.
int vfs_fstatfs_type(int fd, unsigned long *type);

/// Turns O_DIRECT on or off for an open descriptor (fcntl F_SETFL).
int vfs_set_direct_io(int fd, int on);

/// openat(dirfd, path, O_PATH | O_NOFOLLOW | O_CLOEXEC): a handle that names an entry
/// without opening its contents.
int vfs_open_path_nofollow(int dirfd, const char *path);

/// lseek(fd, offset, SEEK_DATA) and lseek(fd, offset, SEEK_HOLE): where data and holes start.
long long vfs_seek_data(int fd, long long offset);
long long vfs_seek_hole(int fd, long long offset);

/// statx(2)'s mount id (STATX_MNT_ID) into *id: of the entry `name` in the folder `dirfd`
/// (a link not followed, an automount not triggered), or with name "" of `dirfd` itself.
/// -1 with ENOSYS when the kernel does not report one (before Linux 5.8).
int vfs_mount_id(int dirfd, const char *name, unsigned long long *id);

/// open(folder, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode): an unnamed file in `folder`
/// that vanishes with the process unless linked; -1 (EOPNOTSUPP, EISDIR, EINVAL) where
/// the file system has no O_TMPFILE.
int vfs_open_tmpfile(const char *folder, unsigned int mode);

/// Gives the unnamed file `fd` (from vfs_open_tmpfile) the name `path`; fails with
/// EEXIST if something is there. linkat(AT_EMPTY_PATH), else through /proc/self/fd.
int vfs_link_tmpfile(int fd, const char *path);

/// ioctl(fd, FS_IOC_GETFLAGS) into *flags: the inode flags lsattr shows. -1 with
/// ENOTTY or EOPNOTSUPP where the file system has none (ramfs, vfat, most FUSE).
int vfs_get_inode_flags(int fd, int *flags);

/// Adds FS_NODUMP_FL (chattr +d) to `fd`'s inode flags: FS_IOC_GETFLAGS, then
/// FS_IOC_SETFLAGS only when the flag is not set yet.
int vfs_set_nodump(int fd);

/// FS_NODUMP_FL, for reading the flags back.
int vfs_nodump_flag(void);

/// sync_file_range(2) on `count` bytes at `offset`: with `wait` 0, starts writing the dirty
/// pages back and returns (SYNC_FILE_RANGE_WRITE); otherwise also waits for their
/// writeback before and after (WAIT_BEFORE | WRITE | WAIT_AFTER).
int vfs_sync_file_range(int fd, long long offset, long long count, int wait);

/// POSIX_SPAWN_SETSID (glibc 2.26, behind _GNU_SOURCE): the child starts a session of its own.
int vfs_posix_spawn_setsid_flag(void);

/// mallopt(M_MMAP_THRESHOLD, mmap_threshold) and mallopt(M_TRIM_THRESHOLD, trim_threshold):
/// blocks below the first come from the heap, and freed memory goes back to the kernel
/// only past the second (a process that cycles large buffers reuses them instead of
/// faulting fresh pages in). 1 if both were taken, 0 if not.
int vfs_malloc_keep_freed(int mmap_threshold, int trim_threshold);

#endif
