"""Headless Chromium for the tests that look at pages (tests/test_web.py, test_editor_preview.py):
the `browser` and `shots` fixtures, imported by those files. Debian's Chromium through
Playwright; without either the browser tests skip, saying why."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

# the machine's network is closed: no background connections, no QUIC
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def find_chromium():
    """(path, None), ("", None) to let Playwright look for its own, or (None, why not)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return None, "Playwright is not installed (pip install playwright)"
    for path in (os.environ.get("RULESPEC_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser",
                 shutil.which("chromium"), shutil.which("chromium-browser"), shutil.which("google-chrome")):
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path, None
    return "", None  # perhaps Playwright's own download (`playwright install chromium`)


@pytest.fixture(scope="module")
def browser():
    path, why = find_chromium()
    if why:
        pytest.skip(f"browser tests skipped: {why}")
    from playwright.sync_api import Error, sync_playwright
    with sync_playwright() as p:
        try:
            b = p.chromium.launch(executable_path=path or None, args=CHROMIUM_ARGS)
        except Error as e:
            if path:
                raise
            pytest.skip("browser tests skipped: no Chromium found (apt-get install chromium, set "
                        f"RULESPEC_CHROMIUM, or `playwright install chromium`): {str(e).splitlines()[0]}")
        yield b
        b.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    """Where screenshots go: $RULESPEC_SCREENSHOTS (docs/img to refresh the docs' pictures) or a
    temporary folder."""
    d = Path(os.environ.get("RULESPEC_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    d.mkdir(parents=True, exist_ok=True)
    return d
