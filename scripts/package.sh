#!/usr/bin/env bash
# Builds vimgpt's Debian package and checks it the way a user meets it: lintian on the .deb, then `apt-get install
# ./vimgpt_*.deb` in a fresh Debian 12 root (mmdebstrap; apt resolves what the package depends on from Debian's
# mirror), and in that root `vimgpt --version`, `vimgpt shot` of a page and `vimgpt doctor`, against servers on
# 127.0.0.1 started here (the root shares this machine's network). Any check that fails stops the script, non-zero.
#
#   scripts/package.sh            # as root (mmdebstrap, mount and chroot need it); about 10 minutes and a fresh build
#
# Not part of CI (.ci/run): run it before a release, and after changing the install rules (cmake/install.cmake), the
# dependencies or the command line. The Debian root is kept in build/package-root/ between runs (delete it for a
# fresh one); the package is build/package/vimgpt_<version>_amd64.deb.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
say() { printf '\n== %s (%ds)\n' "$*" $((SECONDS - started)); }
die() {
  echo "package: $*" >&2
  exit 1
}

[[ $(id -u) -eq 0 ]] || die "run as root: mmdebstrap, mount and chroot need it"
for tool in mmdebstrap lintian dpkg-shlibdeps cpack; do
  command -v "$tool" >/dev/null || die "$tool is missing: apt-get install mmdebstrap lintian dpkg-dev cmake"
done

build=build/package
cache=build/package-root
mkdir -p "$cache"

say "Building a Release vimgpt (without espeak-ng: the binary stays MIT) and the package"
# Debian's hardening flags (dpkg-buildflags, with bindnow), on CMake's Release optimisation. No -Werror: GCC 12 at
# -O3 warns falsely inside libstdc++ (-Wrestrict, reached from valijson), and a package build is no lint.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
scripts/npm_embedded.sh  # autoconsent and the o200k_base ranks, which the binary embeds
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVIMGPT_WITH_ESPEAK=OFF -DVIMGPT_WERROR=OFF \
  -DVIMGPT_BUILD_BENCH=OFF -DVIMGPT_BUILD_TESTS=ON "${launcher[@]}" \
  "-DCMAKE_CXX_FLAGS=-fstack-protector-strong -Wformat -Werror=format-security -Wdate-time -D_FORTIFY_SOURCE=2" \
  "-DCMAKE_EXE_LINKER_FLAGS=-Wl,-z,relro -Wl,-z,now" >/dev/null
# Only what the package holds and the servers the checks use (tests/tools): not every test.
ninja -C "$build" vimgpt vimgpt_shell_files vimgpt_changelog loopback_servers
rm -f "$build"/vimgpt_*.deb
# cpack runs the install rules; with Ninja it builds nothing first, so the tests (not part of the package) stay unbuilt.
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/vimgpt_*_amd64.deb)
echo "$deb: $(du -h "$deb" | cut -f1) ($(stat -c %s "$deb") bytes)"
dpkg-deb --field "$deb" Package Version Architecture Section Maintainer Depends Recommends Suggests Installed-Size
dpkg-deb --contents "$deb" | awk '{print $6}' | grep -v '/$'

say "lintian"
# Overrides, each with its reason: packaging/lintian-overrides (installed with the package, where lintian reads it).
lintian --info --display-info --pedantic "$deb" | tee "$build/lintian.txt" || true
if grep -q '^E: ' "$build/lintian.txt"; then die "lintian reports errors (above)"; fi

say "A fresh Debian 12 root (mmdebstrap, kept in $cache/base)"
if [[ ! -x $cache/base/usr/bin/apt-get ]]; then
  rm -rf --one-file-system "$cache/base.new"
  mmdebstrap --variant=apt --components=main bookworm "$cache/base.new" \
    "deb http://deb.debian.org/debian bookworm main" \
    "deb http://deb.debian.org/debian bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main"
  mv "$cache/base.new" "$cache/base"
fi
root=$cache/root
mounts=()
cleanup() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" || true; done
  [[ -n ${servers_pid:-} ]] && kill "$servers_pid" 2>/dev/null || true
}
trap cleanup EXIT
# A root that never held vimgpt: a copy of the base, every run. --one-file-system: a mount left behind by a run
# that was killed is never walked into.
for m in $(findmnt -rn -o TARGET | grep -F "$PWD/$root/" | sort -r); do umount "$m"; done
rm -rf --one-file-system "$root"
cp -a "$cache/base" "$root"
mkdir -p "$cache/archives/partial"
for spec in "proc proc" "devpts dev/pts" "tmpfs dev/shm" "bind var/cache/apt/archives"; do
  read -r kind where <<<"$spec"
  case $kind in
    proc) mount -t proc proc "$root/$where" ;;
    devpts) mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/$where" ;;  # the root's own, for dpkg's log
    tmpfs) mkdir -p "$root/$where" && mount -t tmpfs -o mode=1777 tmpfs "$root/$where" ;;
    bind) mount --bind "$cache/archives" "$root/$where" ;;  # downloaded packages kept between runs
  esac
  mounts+=("$PWD/$root/$where")
done
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/"

say "apt-get install ./$(basename "$deb") in the root"
chroot "$root" apt-get update -qq
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
  "/tmp/$(basename "$deb")" | tail -n 3
chroot "$root" dpkg-query -W -f='${Package} ${Version}\n' vimgpt chromium-headless-shell
echo "root: $(du -sh --one-file-system "$root" | cut -f1) with vimgpt and what it depends on"

say "Checks in the root, against servers on 127.0.0.1"
# A command in the root; it never holds the servers' pipes (a browser left holding their input would keep them up).
in_root() {
  if [[ -n ${servers_in:-} ]]; then
    chroot "$root" "$@" {servers_in}>&- {servers_out}<&-
  else
    chroot "$root" "$@"
  fi
}
fail=0
check() {  # check NAME COMMAND...: runs it, prints its output, and counts a failure
  local name=$1
  shift
  if "$@"; then echo "ok   $name"; else
    echo "FAIL $name"
    fail=1
  fi
}
expected_version="vimgpt $(sed -n 's/^project(vimgpt VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
commit=$(git describe --tags --always --dirty 2>/dev/null || true)
[[ -n $commit ]] && expected_version+=" ($commit)"
version=$(in_root vimgpt --version)
echo "vimgpt --version: $version"
check "--version is '$expected_version'" test "$version" = "$expected_version"
check "the man page is installed" test -s "$root/usr/share/man/man1/vimgpt.1.gz"
check "bash completes 'vimgpt sh' to shot" in_root bash -c \
  'source /usr/share/bash-completion/completions/vimgpt; COMP_WORDS=(vimgpt sh); COMP_CWORD=1; _vimgpt; [[ ${COMPREPLY[*]} == shot ]]'

# The servers, on two pipes: their first line says they listen; closing their input ends them, and they then say
# what they received. (Opening the pipes waits for the other end, in the same order on both sides.)
pipes=$(mktemp -d)
mkfifo "$pipes/in" "$pipes/out"
"$build/tests/loopback_servers" <"$pipes/in" >"$pipes/out" 2>&1 &
servers_pid=$!
exec {servers_in}>"$pipes/in" {servers_out}<"$pipes/out"
rm -r "$pipes"
read -r -t 30 ready <&"$servers_out" || die "the loopback servers did not start"
[[ $ready == ready* ]] || die "the loopback servers said '$ready' instead of 'ready ...'"
read -r _ model_url site_url <<<"$ready"
echo "model $model_url, site $site_url"

rm -f "$root/tmp/page.png"
check "shot of $site_url/index.html" in_root vimgpt shot "$site_url/index.html" -o /tmp/page.png
check "the shot is a 1080x720 PNG" test "$(od -An -tx1 -j16 -N8 "$root/tmp/page.png" 2>/dev/null | tr -d ' \n')" = \
  "00000438000002d0"
doctor=$(in_root vimgpt doctor --base-url "$model_url" --api-key k --model gpt-6.1-terra 2>&1) && status=0 ||
  status=$?
echo "$doctor"
check "doctor passes against the fake model (exit $status)" test "$status" = 0
check "doctor saw the right label clicked" grep -q 'ok   right action' <<<"$doctor"

exec {servers_in}>&-  # their end of input: they report and exit
received=$(cat <&"$servers_out")
servers_status=0
wait "$servers_pid" || servers_status=$?
servers_pid=""
echo "$received"
check "the browser in the root fetched the page from the host" grep -q '^site GET /index.html$' <<<"$received"
check "the fake model received doctor's one request" grep -q '^model requests 1$' <<<"$received"
check "and found nothing wrong in it (exit $servers_status)" test "$servers_status" = 0

say "Done: $(basename "$deb"), $(du -h "$deb" | cut -f1)"
exit $fail
