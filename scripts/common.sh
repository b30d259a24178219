# Shared by scripts/demo and scripts/test: dependencies, configure once, incremental builds.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

JOBS="${ASSIGNOR_JOBS:-$(nproc 2>/dev/null || echo 2)}"

# configure PRESET: runs CMake only when the build tree does not exist yet; afterwards Ninja
# re-runs CMake by itself whenever a CMakeLists.txt changes.
configure() {
  local preset="$1" dir="$2"
  if [ ! -f "$dir/build.ninja" ]; then
    cmake --preset "$preset" >/dev/null
  fi
}

build() {
  local dir="$1"; shift
  cmake --build "$dir" -j "$JOBS" "$@"
}
