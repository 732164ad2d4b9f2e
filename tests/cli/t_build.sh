# The build's dependency step: quiet when pkg-config finds cJSON and CUnit; on a system without
# apt-get it names the packages to install and fails instead of going on.
mkdir -p "$TMP/fakebin"
printf '#!/bin/sh\nexit 1\n' >"$TMP/fakebin/pkg-config"
chmod +x "$TMP/fakebin/pkg-config"
if PATH="$TMP/fakebin" /bin/sh "$ROOT/build-aux/ensure-deps" >"$TMP/deps.out" 2>"$TMP/deps.err"; then
	not_ok "ensure-deps succeeded with no cJSON, CUnit or apt-get"
elif ! grep -q "libcjson-dev libcunit1-dev libxml2-utils" "$TMP/deps.err" || [ -s "$TMP/deps.out" ]; then
	not_ok "ensure-deps without apt-get does not name the packages: $(cat "$TMP/deps.err")"
else
	ok
fi
if command -v pkg-config >/dev/null && pkg-config --exists libcjson cunit; then
	if sh "$ROOT/build-aux/ensure-deps" >"$TMP/deps.out" 2>&1 && [ ! -s "$TMP/deps.out" ]; then
		ok
	else
		not_ok "ensure-deps is not quiet when everything is installed: $(cat "$TMP/deps.out")"
	fi
fi
