# Sourced by the test scripts that need Debian packages. `require_debian_packages TASK PKG...` returns when
# every PKG is installed. Otherwise it installs them only with an explicit opt-in,
# BUFFERUTIL_SIMD_INSTALL_SYSTEM_PACKAGES=1 (.ci/run sets it), printing what it installs, and a failed
# install is then a failure (exit 1). Without the opt-in it says what is missing and how to opt in, and
# exits 0: the task is skipped, not failed.

require_debian_packages() {
  local task=$1
  shift
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0

  if [ "${BUFFERUTIL_SIMD_INSTALL_SYSTEM_PACKAGES:-}" != 1 ]; then
    echo "$task: skipped, these Debian packages are missing: ${missing[*]}"
    echo "$task: install them (apt-get install ${missing[*]}), or rerun with BUFFERUTIL_SIMD_INSTALL_SYSTEM_PACKAGES=1 to let this script install them"
    exit 0
  fi
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  if ! command -v apt-get >/dev/null; then
    echo "$task: FAILED, BUFFERUTIL_SIMD_INSTALL_SYSTEM_PACKAGES=1 but there is no apt-get to install ${missing[*]}" >&2
    exit 1
  fi
  echo "$task: installing Debian packages (BUFFERUTIL_SIMD_INSTALL_SYSTEM_PACKAGES=1): ${missing[*]}"
  if ! { "${sudo[@]}" apt-get update -q && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"; }; then
    echo "$task: FAILED to install ${missing[*]}" >&2
    exit 1
  fi
}
