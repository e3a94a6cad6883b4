#!/usr/bin/env bash
# make deb: turns STAGE/root (a `make install DESTDIR=STAGE/root PREFIX=/usr`) into
# OUT/vfs_VERSION_ARCH.deb with dpkg-deb. Adds the systemd units, the maintainer scripts
# and README.Debian from packaging/, gzips the man pages, and computes Depends with
# dpkg-shlibdeps from the libraries the binaries really load.
# Usage: packaging/deb.sh STAGE OUT TOOL…  (DEB_COMPRESSION: xz by default; the tests
# use none, as xz of a dozen static binaries costs minutes on a busy machine)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
stage=$1 out=$2; shift 2
root="$stage/root"
fail() { echo "make deb: error: $1" >&2; shift; for h in "$@"; do echo "make deb: hint: $h" >&2; done; exit 1; }
for cmd in dpkg-deb dpkg-shlibdeps; do
  command -v "$cmd" >/dev/null || fail "$cmd is not installed" "apt-get install dpkg-dev"
done
version=$(sed -n 's/^public let vfsVersion = "\(.*\)"$/\1/p' "$here/../Sources/VFSCore/Version.swift")
[ -n "$version" ] || fail "no version in Sources/VFSCore/Version.swift"
arch=$(dpkg --print-architecture)
doc="$root/usr/share/doc/vfs"

# Man pages gzipped (Debian policy), docs, units.
gzip -9n "$root"/usr/share/man/man1/*.1 "$root"/usr/share/man/man7/*.7
install -d "$doc" "$root/lib/systemd/system" "$root/usr/lib/systemd/user"
install -m 0644 "$here/debian/README.Debian" "$doc/README.Debian"
gzip -9nc "$here/../README.md" > "$doc/README.md.gz"
install -m 0644 "$here/systemd/vfs-relay.service" "$here/systemd/vfs-shred@.service" \
  "$here/systemd/vfs-shred@.timer" "$here/systemd/vfs-push-send@.service" "$here/systemd/vfs-push-send@.timer" \
  "$root/lib/systemd/system/"
install -m 0644 "$here/systemd/vfs-fetch.service" "$root/usr/lib/systemd/user/"

# Depends: dpkg-shlibdeps maps each library the binaries load to its package. It wants a
# debian/control beside it; a library it cannot map (the toolchain's libswiftCore.so, say)
# is an error, not a silent gap.
bins=()
for t in "$@"; do bins+=("$root/usr/bin/$t"); done
mkdir -p "$stage/shlibs/debian"
printf 'Source: vfs\n\nPackage: vfs\nArchitecture: any\n' > "$stage/shlibs/debian/control"
depends=$(cd "$stage/shlibs" && dpkg-shlibdeps -O "${bins[@]}" 2>"$stage/shlibs/errors") \
  || fail "dpkg-shlibdeps could not map every library the binaries load: $(head -n 1 "$stage/shlibs/errors")" \
          "build with \`make build\` (it links the Swift libraries statically)"
depends=${depends#shlibs:Depends=}
case "$depends" in *swift*|*Foundation*) fail "the binaries load Swift libraries: $depends" "build with \`make build\`" ;; esac

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
install -d "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<CONTROL
Package: vfs
Version: $version
Architecture: $arch
Maintainer: vfs maintainers <vfs@example.invalid>
Installed-Size: $size
Depends: $depends, passwd
Suggests: age, pass
Section: utils
Priority: optional
Homepage: https://example.invalid/vfs
Description: small Unix commands that keep files secret, approved and destroyed
 age-compatible encryption (vfs-encrypt, vfs-decrypt, vfs-keygen), an encrypted
 keychain with an unlock agent (vfs-keychain), shredding (vfs-shred), an
 approved-apps policy (vfs-policy), sealed bundles (vfs-wrap, vfs-unwrap), and a
 relay server (vfs-relay, with a systemd unit) with its client tools (vfs-device,
 vfs-push, vfs-fetch, vfs-cloud, vfs-share).
CONTROL
for s in postinst prerm postrm; do install -m 0755 "$here/debian/$s" "$root/DEBIAN/$s"; done
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort | xargs md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

mkdir -p "$out"
deb="$out/vfs_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Z"${DEB_COMPRESSION:-xz}" --build "$root" "$deb" >/dev/null
echo "built $deb (Depends: $depends, passwd)"
