#!/usr/bin/env bash
# The Debian package (`cpack -G DEB`): it depends on the libraries the
# binary links and on the valgrind release its tool was built from,
# recommends rr, installs where apt can satisfy it (simulated), and its
# files, unpacked into a scratch root, record and report a program.
source "$(dirname "$0")/install_lib.sh"
: "${BUILD:?BUILD must name the build tree}"
cpack -G DEB -B "$T/package" --config "$BUILD/CPackConfig.cmake" >"$T/cpack.log" 2>&1 ||
    fail "cpack: $(tail -5 "$T/cpack.log")"
deb=$(ls "$T"/package/trms_*_amd64.deb)
depends=$(dpkg-deb -f "$deb" Depends)
for library in libcapstone4 libdw1 liblmdb0 libzstd1 "valgrind (>= " "valgrind (<< "; do
    [[ "$depends" == *"$library"* ]] || fail "Depends lacks $library: $depends"
done
[ "$(dpkg-deb -f "$deb" Recommends)" = rr ] || fail "Recommends: $(dpkg-deb -f "$deb" Recommends)"
if [ "$(id -u)" = 0 ]; then
    apt-get install --simulate "$deb" >"$T/apt.log" 2>&1 || fail "apt cannot install it: $(tail -3 "$T/apt.log")"
fi
dpkg-deb -x "$deb" "$T/root"
for f in usr/bin/trms usr/lib/trms/trms usr/lib/trms/valgrind/trms-amd64-linux usr/share/man/man1/trms-record.1 \
         usr/share/man/man5/trms-trace.5 usr/share/bash-completion/completions/trms; do
    [ -e "$T/root/$f" ] || fail "the package lacks /$f"
done
check_installed "$T/root/usr"
