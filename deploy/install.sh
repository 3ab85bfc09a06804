#!/bin/sh
# Cairn installer: installs a release bundle, or upgrades an install to it through the upgrade engine
# (backup, verify, roll back on failure), then applies the host steps (systemd units, nginx site).
#
#   deploy/install.sh [options] <cairn-X.Y.Z.tar.gz>
#     --root <dir>     install root (default: $CAIRN_ROOT, else $HOME/cairn)
#     --host <name>    server name of the nginx site (default: this host's name)
#     --host-only      only the host steps (units, nginx); no install or upgrade
#     --adopt          replace a hand-edited nginx site (otherwise the new one is written beside it as .new)
#     --no-nginx       no nginx site
#     --force          install over a git checkout, or while an upgrade seems to run (never a downgrade)
#
# Exit codes: 0 installed or upgraded; 1 the upgrade failed (rolled back), never ended, or was refused;
# 2 upgraded, but a host step failed.
set -u

ROOT="${CAIRN_ROOT:-$HOME/cairn}"
HOST_NAME=""
HOST_ONLY=0
ADOPT=0
NO_NGINX=0
FORCE=0
BUNDLE=""

die() { echo "install.sh: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --root) [ $# -ge 2 ] || die "--root needs a directory"; ROOT="$2"; shift 2 ;;
    --host) [ $# -ge 2 ] || die "--host needs a name"; HOST_NAME="$2"; shift 2 ;;
    --host-only) HOST_ONLY=1; shift ;;
    --adopt) ADOPT=1; shift ;;
    --no-nginx) NO_NGINX=1; shift ;;
    --force) FORCE=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$BUNDLE" ] || die "one bundle at a time"; BUNDLE="$1"; shift ;;
  esac
done

command -v node >/dev/null 2>&1 || die "node (20 or later) is not on PATH"
command -v tar >/dev/null 2>&1 || die "tar is not on PATH"
CURRENT="$ROOT/current"
CAIRN="$CURRENT/bin/cairn.mjs"

# A git checkout is run from source, not from releases: installing over it would mix the two.
if [ -e "$ROOT/.git" ] || [ -e "$CURRENT/.git" ]; then
  [ "$FORCE" = 1 ] || die "$ROOT is a git checkout; refusing to install over it (--force to do it anyway)"
fi

host_steps() {
  failed=0
  if [ "${CAIRN_HOST:-}" = systemd ] || grep -q '^CAIRN_HOST=systemd' "$ROOT/shared/.env" 2>/dev/null; then
    for unit in "$CURRENT"/deploy/systemd/*.service "$CURRENT"/deploy/systemd/*.timer; do
      [ -e "$unit" ] || continue
      systemctl --user link "$unit" >/dev/null || failed=1
    done
    systemctl --user daemon-reload || failed=1
    systemctl --user enable --now cairn-recover.timer || failed=1
    systemctl --user enable cairn-recover.service cairn-web.service || failed=1
  fi
  if [ "$NO_NGINX" = 0 ] && [ -d /etc/nginx/sites-available ]; then
    name="${HOST_NAME:-$(hostname -f 2>/dev/null || hostname)}"
    port=$(sed -n 's/^PORT=//p' "$ROOT/shared/.env" 2>/dev/null | tail -n1)
    site=/etc/nginx/sites-available/cairn.conf
    new=$(mktemp)
    cat > "$new" <<NGINX
server {
    listen 80;
    server_name $name;
    client_max_body_size 100m;
    location / {
        proxy_pass http://127.0.0.1:${port:-8080};
        proxy_set_header Host \$host;
        proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto \$scheme;
    }
}
NGINX
    if [ -e "$site" ] && ! cmp -s "$new" "$site" && [ "$ADOPT" = 0 ]; then
      cp "$new" "$site.new" && echo "nginx: $site was edited by hand; the new site is in $site.new (--adopt replaces it)" || failed=1
    else
      cp "$new" "$site" && ln -sf "$site" /etc/nginx/sites-enabled/cairn.conf && nginx -t >/dev/null 2>&1 && (systemctl reload nginx 2>/dev/null || true) || failed=1
    fi
    rm -f "$new"
  fi
  return $failed
}

if [ "$HOST_ONLY" = 1 ]; then
  [ -e "$CAIRN" ] || die "no release installed at $CURRENT"
  host_steps || exit 2
  exit 0
fi

[ -n "$BUNDLE" ] || die "which bundle? usage: install.sh [options] <cairn-X.Y.Z.tar.gz>"
[ -f "$BUNDLE" ] || die "no bundle at $BUNDLE"
case "$BUNDLE" in /*) ;; *) BUNDLE="$(pwd)/$BUNDLE" ;; esac
TARGET=$(tar -xzOf "$BUNDLE" --occurrence=1 manifest.json 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{process.stdout.write(String(JSON.parse(s).version??""))}catch{}})')
[ -n "$TARGET" ] || die "$BUNDLE is not a Cairn release bundle (no manifest.json)"

if [ ! -e "$CAIRN" ]; then
  # Fresh install: unpack, verify by running it, link current, make the shared folders.
  mkdir -p "$ROOT/releases/$TARGET" "$ROOT/shared/data" "$ROOT/shared/backups" || die "cannot create $ROOT"
  tar -xzf "$BUNDLE" -C "$ROOT/releases/$TARGET" --no-same-owner || die "could not unpack $BUNDLE"
  [ "$(node "$ROOT/releases/$TARGET/bin/cairn.mjs" --version 2>/dev/null)" = "$TARGET" ] || die "the unpacked release does not run"
  ln -sfn "releases/$TARGET" "$CURRENT"
  [ -e "$ROOT/shared/.env" ] || printf 'HOST=127.0.0.1\nPORT=8080\nCAIRN_DATA_DIR=%s\n' "$ROOT/shared/data" > "$ROOT/shared/.env"
  chmod 600 "$ROOT/shared/.env"
  echo "Installed Cairn $TARGET in $ROOT."
  host_steps || exit 2
  exit 0
fi

INSTALLED=$(node "$CAIRN" --version 2>/dev/null) || die "the installed release at $CURRENT does not run"
ORDER=$(node "$CAIRN" upgrade compare "$TARGET" "$INSTALLED" 2>&1) || die "cannot compare $TARGET with $INSTALLED: $ORDER"
# Nothing overrides this one, not even --force.
[ "$ORDER" = "-1" ] && die "$TARGET is older than the installed $INSTALLED: downgrades are refused"
if [ "$ORDER" = "0" ]; then
  echo "Cairn $INSTALLED is already installed; applying the host steps only."
  host_steps || exit 2
  exit 0
fi

if [ "$FORCE" = 0 ] && node "$CAIRN" upgrade status --root "$ROOT" 2>/dev/null | grep -q 'An upgrade is running now'; then
  die "An upgrade is already running. (--force to try anyway; the engine still refuses while it lives)"
fi

echo "Upgrading Cairn $INSTALLED → $TARGET ..."
if { [ "${CAIRN_HOST:-}" = systemd ] || grep -q '^CAIRN_HOST=systemd' "$ROOT/shared/.env" 2>/dev/null; } && command -v systemd-run >/dev/null 2>&1; then
  # Its own unit, so stopping cairn-web cannot take it down; a crash starts the recovery unit.
  systemd-run --user --unit=cairn-upgrade --collect --wait --pipe -p KillMode=mixed -p TimeoutStopSec=300 \
    -p OnFailure=cairn-recover.service -E CAIRN_ROOT="$ROOT" -E CAIRN_UPGRADE_TRIGGER=installer \
    node "$CAIRN" upgrade bundle "$BUNDLE" --root "$ROOT"
  rc=$?
else
  CAIRN_UPGRADE_TRIGGER=installer node "$CAIRN" upgrade bundle "$BUNDLE" --root "$ROOT"
  rc=$?
fi
[ "$rc" = 0 ] || { echo "install.sh: the upgrade did not complete (see above; \`cairn upgrade status\`)." >&2; exit 1; }
host_steps || { echo "install.sh: upgraded to $TARGET, but a host step failed." >&2; exit 2; }
echo "Upgraded to Cairn $TARGET."
exit 0
