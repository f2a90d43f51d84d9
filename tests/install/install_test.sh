#!/usr/bin/env bash
# An installed tilefit works: `cmake --install` into a prefix, run from PATH (tilefit and
# tilefit-launch), the prefix moved elsewhere and run again; and the Debian package that
# `cpack -G DEB` makes declares its dependencies (which apt can satisfy here), installs with
# `dpkg -i` into a clean root (its own dpkg database, nothing else installed), and runs there.
#   install_test.sh BUILD_DIR [deb]
set -euo pipefail
build=$1
what=${2:-prefix}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/k.cu" <<'CU'
__global__ void k(float *o) {
  __shared__ float t[256];
  t[threadIdx.x] = o[threadIdx.x];
  __syncthreads();
  o[threadIdx.x] = t[255 - threadIdx.x];
}
CU

# Runs the tilefit that PATH finds on k.cu; fails unless k's figure is ptxas's 1024 bytes.
check_figure() {
  local out
  out=$(cd "$tmp" && tilefit --arch=sm_80 --no-cuda-toolkit --format=json k.cu --)
  python3 - "$out" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
k = [k for k in r["kernels"] if k["name"] == "k"]
assert k and k[0]["static_smem_bytes"] == 1024, r["kernels"]
PY
  tilefit-launch --help | grep "USAGE: tilefit-launch" > /dev/null
  tilefit lsp --help | grep "OVERVIEW: tilefit lsp" > /dev/null
}

if [ "$what" = prefix ]; then
  cmake --install "$build" --prefix "$tmp/p" > "$tmp/install.log"
  for f in bin/tilefit bin/tilefit-launch share/tilefit/capacity.json \
           share/tilefit/include/tilefit/cuda_prelude.h share/doc/tilefit/checks.md; do
    [ -e "$tmp/p/$f" ] || { echo "not installed: $f"; exit 1; }
  done
  PATH="$tmp/p/bin:$PATH" check_figure
  echo "installed prefix: ok"
  # Moved: it finds its data beside itself, not where it was installed.
  mv "$tmp/p" "$tmp/moved"
  PATH="$tmp/moved/bin:$PATH" check_figure
  echo "moved prefix: ok"
  exit 0
fi

# The Debian package.
for tool in dpkg-deb dpkg-shlibdeps cpack; do
  command -v "$tool" > /dev/null || { echo "no $tool: skipped"; exit 77; }
done
(cd "$build" && cpack -G DEB -B "$tmp/deb" > "$tmp/cpack.log") || { cat "$tmp/cpack.log"; exit 1; }
deb=$(ls "$tmp"/deb/tilefit_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for d in libclang-common-19-dev libc6 libstdc++6; do
  case "$depends" in *"$d"*) ;; *) echo "the package does not depend on $d"; exit 1 ;; esac
done
dpkg-deb -c "$deb" | grep "./usr/bin/tilefit-launch -> tilefit" > /dev/null \
  || { echo "no tilefit-launch link in the package"; exit 1; }
# Its dependencies resolve against this machine's packages (a simulation: nothing is installed).
if command -v apt-get > /dev/null; then
  apt-get install -s "$deb" > "$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log"; exit 1; }
  grep -E "^(Inst tilefit|tilefit is already)" "$tmp/apt.log" > /dev/null \
    || { cat "$tmp/apt.log"; echo "apt would not install the package"; exit 1; }
fi
# dpkg -i into a clean root: an empty dpkg database of its own. Its dependencies are this
# machine's (checked above), not the root's, so they are not asked of it.
root="$tmp/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
dpkg --root="$root" --admindir="$root/var/lib/dpkg" --log=/dev/null --force-depends \
  --force-not-root --force-script-chrootless -i "$deb" > "$tmp/dpkg.log" 2>&1 \
  || { cat "$tmp/dpkg.log"; exit 1; }
dpkg --admindir="$root/var/lib/dpkg" -s tilefit | grep "^Status: install ok installed" > /dev/null \
  || { echo "dpkg does not list the package as installed"; exit 1; }
dpkg --admindir="$root/var/lib/dpkg" -L tilefit | grep "/usr/bin/tilefit$" > /dev/null \
  || { echo "dpkg does not list /usr/bin/tilefit"; exit 1; }
PATH="$root/usr/bin:$PATH" check_figure
# Removed: dpkg takes back every file it installed.
dpkg --root="$root" --admindir="$root/var/lib/dpkg" --log=/dev/null --force-not-root \
  --force-script-chrootless -r tilefit > "$tmp/dpkg-r.log" 2>&1 || { cat "$tmp/dpkg-r.log"; exit 1; }
[ ! -e "$root/usr/bin/tilefit" ] || { echo "dpkg -r left /usr/bin/tilefit"; exit 1; }
echo "package: ok"
