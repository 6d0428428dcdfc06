#!/usr/bin/env bash
# What the tests need besides node_modules, made present before `npm test` runs a single test:
#   - Debian's Chromium at /usr/bin/chromium (or $STEPWISE_CHROMIUM) for the end-to-end tests
#     (test/helpers/browser.ts; playwright-core never downloads a browser);
#   - OpenStack Swift with its S3 layer, the real S3 server of the file tests (test/helpers/swift.ts);
#   - PostgreSQL answering at 127.0.0.1:5432 (or $TEST_POSTGRES_URL), the second backend.
# Missing Debian packages are installed with apt-get (through sudo when not root) and a local
# PostgreSQL cluster that does not answer is started with pg_ctlcluster; each action is one line on
# stderr, and anything that cannot be done stops here with an error saying what to do instead.
# With everything present it does nothing and prints nothing (a few milliseconds).
#
# --check: install and start nothing; exit 1 with the list of what is missing (test/repo/ci-script.test.ts).
set -euo pipefail

CHECK_ONLY=false
case "${1:-}" in
  "") ;;
  --check) CHECK_ONLY=true ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

say() { echo "test prerequisites: $*" >&2; }
fail() { echo "test prerequisites: error: $*" >&2; exit 1; }

CHROMIUM="${STEPWISE_CHROMIUM:-/usr/bin/chromium}"
SWIFT_PACKAGES=(swift swift-proxy swift-object swift-container swift-account python3-swift)
SWIFT_FILES=(
  /usr/bin/swift-ring-builder /usr/bin/swift-proxy-server /usr/bin/swift-object-server
  /usr/bin/swift-container-server /usr/bin/swift-account-server /etc/swift/swift.conf
)

packages=() # Debian packages to install
absent=()   # what they would bring
missing=()  # everything not there (filled below)
if [ ! -x "$CHROMIUM" ]; then
  # Another browser path was chosen on purpose: installing Debian's would not put one there.
  [ -n "${STEPWISE_CHROMIUM:-}" ] && fail "STEPWISE_CHROMIUM=$STEPWISE_CHROMIUM is not an executable file"
  packages+=(chromium)
  absent+=("Chromium at $CHROMIUM")
fi
for file in "${SWIFT_FILES[@]}"; do
  if [ ! -e "$file" ]; then
    packages+=("${SWIFT_PACKAGES[@]}")
    absent+=("OpenStack Swift ($file)")
    break
  fi
done

postgres_answers() {
  if command -v pg_isready >/dev/null; then
    pg_isready -q -d "${TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
  else
    # Without the client tools, a listener on the default address is the best sign available.
    [ -z "${TEST_POSTGRES_URL:-}" ] && (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null
  fi
}
missing=("${absent[@]}")
postgres_up=true
postgres_answers || { postgres_up=false; missing+=("PostgreSQL at ${TEST_POSTGRES_URL:-127.0.0.1:5432}"); }

# Optional, never a failure: MLflow's real Python clients for test/integration/mlflow-real-clients.test.ts,
# built from source (Debian's Python, git mirrors, no PyPI) when this machine carries the mlflow-client
# tool and its mirrors. Without them those tests are skipped, saying so.
HERE=$(cd "$(dirname "$0")/.." && pwd)
MLFLOW_CLIENTS="${STEPWISE_MLFLOW_CLIENTS:-$HERE/.scratch/mlflow-clients}"
MLFLOW_SETUP="${STEPWISE_MLFLOW_SETUP:-$HERE/../shared/tools/mlflow-client/setup.sh}"
MLFLOW_MIRRORS="${STEPWISE_MLFLOW_MIRRORS:-/work/.mirror}"
if ! $CHECK_ONLY && [ ! -d "$MLFLOW_CLIENTS/deps/site/cachetools" ] && [ -f "$MLFLOW_SETUP" ] &&
  [ -d "$MLFLOW_MIRRORS/harupy+mlflow/repo" ] && [ "$(id -u)" = 0 ]; then
  say "building MLflow's real clients into $MLFLOW_CLIENTS ($MLFLOW_SETUP), a few minutes"
  mkdir -p "$MLFLOW_CLIENTS"
  if ! ROOT="$MLFLOW_CLIENTS" MIRRORS="$MLFLOW_MIRRORS" bash "$MLFLOW_SETUP" >"$MLFLOW_CLIENTS/setup.log" 2>&1; then
    say "could not build MLflow's clients (see $MLFLOW_CLIENTS/setup.log): the real-client tests will be skipped"
  fi
fi

[ ${#missing[@]} -eq 0 ] && exit 0

if $CHECK_ONLY; then
  printf -v list '%s, ' "${missing[@]}"
  fail "missing: ${list%, } (run scripts/test-prerequisites.sh, or npm test, to install and start them)"
fi

if [ ${#packages[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    SUDO=()
  elif command -v sudo >/dev/null; then
    SUDO=(sudo)
  else
    fail "${packages[*]} must be installed (apt-get install ${packages[*]}), which needs root; run as root, install sudo, or install them yourself"
  fi
  command -v apt-get >/dev/null ||
    fail "no apt-get on this machine: install Debian's ${packages[*]} (or their equivalents, see test/helpers/browser.ts and test/helpers/swift.ts) yourself"
  printf -v list '%s, ' "${absent[@]}"
  say "installing ${packages[*]} with ${SUDO[*]:+${SUDO[*]} }apt-get, a few minutes (missing: ${list%, })"
  log=$(mktemp)
  trap 'rm -f "$log"' EXIT
  install() { "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"; }
  # Chromium with its recommended fonts; Swift without the recommended extras it does not need here.
  if ! { "${SUDO[@]}" apt-get update -qq &&
    { [[ " ${packages[*]} " != *" chromium "* ]] || install chromium; } &&
    { [[ " ${packages[*]} " != *" swift "* ]] || install --no-install-recommends "${SWIFT_PACKAGES[@]}"; }; } >"$log" 2>&1; then
    cat "$log" >&2
    fail "apt-get could not install ${packages[*]} (its output is above)"
  fi
  [ -x "$CHROMIUM" ] || fail "Chromium is still missing at $CHROMIUM after apt-get install chromium"
  for file in "${SWIFT_FILES[@]}"; do [ -e "$file" ] || fail "$file is still missing after apt-get install ${SWIFT_PACKAGES[*]}"; done
fi

if ! $postgres_up; then
  [ -n "${TEST_POSTGRES_URL:-}" ] && fail "PostgreSQL does not answer at TEST_POSTGRES_URL=$TEST_POSTGRES_URL; start it, or unset TEST_POSTGRES_URL to use 127.0.0.1:5432"
  command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ] ||
    fail "PostgreSQL does not answer at 127.0.0.1:5432 and there is no local cluster to start (apt-get install postgresql, with user postgres on trust auth, or set TEST_POSTGRES_URL)"
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  say "starting PostgreSQL $version (cluster main) with pg_ctlcluster: nothing answered at 127.0.0.1:5432"
  if [ "$(id -u)" = 0 ]; then
    pg_ctlcluster --skip-systemctl-redirect "$version" main start
  elif command -v sudo >/dev/null; then
    sudo pg_ctlcluster --skip-systemctl-redirect "$version" main start
  else
    fail "starting PostgreSQL needs root or the postgres user: run pg_ctlcluster $version main start as one of them"
  fi || fail "pg_ctlcluster could not start PostgreSQL $version main (see above)"
  for _ in $(seq 50); do postgres_answers && break; sleep 0.2; done
  postgres_answers || fail "PostgreSQL $version main was started but does not answer at 127.0.0.1:5432 after 10 s"
fi
