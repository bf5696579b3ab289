"""Every rendered report of a folder, as a reader's browser shows it: what reads badly.

:func:`check_folder` opens each ``*.html`` of a reports folder (``index.html`` and every
``NAME.html``) in Debian's headless Chromium (``/usr/bin/chromium``) through Playwright's
DevTools protocol, at a fixed 1280 px wide viewport, with every ``<details>`` fold opened,
and returns one :class:`Finding` per defect:

- **clipped table**: a table whose content is wider than its box (``scrollWidth >
  clientWidth`` of the table, of its parent or of its output area), or a page wider than the
  window;
- **small figure**: an image shown at less than :data:`MIN_IMAGE_SCALE` of its natural
  width, or whose smallest text is under :data:`MIN_TEXT_PX` CSS pixels as shown: font size
  (pt) x dpi / 72 x shown / natural width. The figure's smallest font size and dpi come from
  the image's ``data-font-pt`` and ``data-dpi`` attributes, which the report exporter writes
  from the kernel's figure check (:func:`trackerlab.reporting.figure_check.figure_fonts`);
  an image without them is a finding too, since its text cannot be measured;
- **unstyled DataFrame**: index cells (``th`` in a row that has ``td`` cells), snake_case
  headers (cells of rows made of ``th`` only), and
  ``True``/``False``, ``NaN`` or e-notation (``1.292e+02``) cells;
- **monospace block that is not code**: printed output (a ``pre`` in an output area), or a
  markdown ``pre`` without a code language (text indented by four spaces);
- **heading inside a list item** (a bullet starting with ``#``);
- **machine path** (``/work/...``, ``/home/...``: any absolute path of two or more parts) and
  **seed file name** (``000_...txt``) in the visible text or in a link;
- **console error** (console errors, uncaught exceptions, failed loads) and **request**: any
  request other than the page's own ``file://`` URL and ``data:`` URLs is counted and
  aborted (every request is routed), so a report that fetches a script or a font fails.

Hidden code (behind the "Show code" toggle) is not read: it is code. Cost: one browser
start per folder, about a second per page plus a few milliseconds per element.
:func:`screenshots` writes full-page PNGs of pages in the same browser.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from trackerlab.core.durable import atomic_write_bytes
from trackerlab.core.errors import UsageError
from trackerlab.reporting.seeds import SEED_FILE

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ViewportSize  # run time: imported in _browser

__all__ = [
    "CHROMIUM",
    "MIN_IMAGE_SCALE",
    "MIN_TEXT_PX",
    "VIEWPORT",
    "BrowserMissing",
    "Finding",
    "check_folder",
    "check_pages",
    "pages_of",
    "screenshots",
]

#: Debian's Chromium (``apt-get install chromium``; ``$TRACKERLAB_CHROMIUM`` overrides it);
#: Playwright's own browsers are not used (no ``playwright install``).
CHROMIUM = os.environ.get("TRACKERLAB_CHROMIUM", "/usr/bin/chromium")
#: The window every page is checked and photographed in (CSS pixels, scale 1).
VIEWPORT: ViewportSize = {"width": 1280, "height": 900}
#: An image shown at less than this share of its natural width is a finding.
MIN_IMAGE_SCALE = 0.40
#: Smallest figure text, in CSS pixels at the size the page shows the image.
MIN_TEXT_PX = 9.0
#: Seed file names: the stored form (``NNN_<16 hex>.txt``) and any ``NNN_word.txt``.
SEED_NAME = re.compile(rf"{SEED_FILE.pattern}|\b\d{{3}}_[\w-]+\.txt\b")
#: A path on a machine: under a root that holds checkouts and scratch files, or in a home
#: folder (``~/``); not ``msg/ms``, a URL or an API path such as ``/admin/v2/...``.
MACHINE_ROOTS = (
    "work",
    "home",
    "root",
    "tmp",
    "Users",
    "var",
    "opt",
    "usr",
    "mnt",
    "srv",
    "private",
    "media",
    "run",
    "scratch",
    "builds",
    "data",
    "nix",
    "etc",
)
MACHINE_PATH = re.compile(
    rf"(?<![\w.~:/\\-])(?:~|/(?:{'|'.join(MACHINE_ROOTS)}))/[\w.+-]*(?:/[\w.+-]*)*(?<!\.)"
)
#: Milliseconds to wait after the load event for late console messages and requests.
SETTLE_MS = 300


class BrowserMissing(UsageError):
    """Playwright for Python or Chromium is not installed (exit 2, one line)."""


@dataclass(frozen=True)
class Finding:
    """One defect: the page's file name, what is wrong, and where (section or element)."""

    report: str
    what: str
    where: str

    def line(self) -> str:
        """``REPORT: WHAT (at WHERE)``, the line ``trackerlab report --check`` prints."""
        where = f" (at {self.where})" if self.where else ""
        return f"{self.report}: {self.what}{where}"


# The DOM checks, run in the page after the load. Returns [{what, where}, ...].
_DOM_CHECKS = r"""
([minScale, minTextPx, machinePath, seedName]) => {
  const out = [];
  const headings = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')];
  const clip = (s, n = 60) => {
    s = (s || '').replace(/\s+/g, ' ').trim();
    return s.length > n ? s.slice(0, n - 1) + '…' : s;
  };
  const section = (el) => {
    let last = null;
    for (const h of headings) {
      if (h === el || h.contains(el)) continue;
      if (h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) last = h;
      else break;
    }
    return last ? 'section "' + clip(last.textContent.replace(/¶/g, ''), 50) + '"' : 'top';
  };
  const shown = (el) => el.checkVisibility({ visibilityProperty: true, opacityProperty: true });
  const isCode = (el) => !!el.closest('.jp-InputArea, .jp-Cell-inputWrapper');
  const add = (what, el, detail) => {
    out.push({ what, where: section(el) + (detail ? ', ' + detail : '') });
  };
  const nth = (el, selector) => [...document.querySelectorAll(selector)].indexOf(el) + 1;

  if (document.documentElement.scrollWidth > document.documentElement.clientWidth + 1) {
    out.push({ what: 'page wider than the window (' + document.documentElement.scrollWidth +
      ' px > ' + document.documentElement.clientWidth + ' px)', where: 'page' });
  }

  for (const table of document.querySelectorAll('table')) {
    if (!shown(table) || isCode(table)) continue;
    // header rows hold only th (in a thead or not); an index is a th in a row with td
    const rows = [...table.rows];
    const headRows = rows.filter((r) => r.cells.length && [...r.cells].every((c) => c.tagName === 'TH'));
    const heads = headRows.flatMap((r) => [...r.cells].map((c) => c.textContent.trim()));
    const name = 'table ' + nth(table, 'table') +
      (heads.filter(Boolean).length ? ' [' + clip(heads.filter(Boolean).join(', '), 50) + ']' : '');
    const boxes = [table, table.parentElement, table.closest('.jp-OutputArea-output')];
    for (const box of new Set(boxes.filter(Boolean))) {
      if (box.scrollWidth > box.clientWidth + 1 && box.clientWidth > 0) {
        add('table wider than its box (content ' + box.scrollWidth + ' px, box ' +
          box.clientWidth + ' px)', table, name);
        break;
      }
    }
    const indexCells = rows.filter((r) => !headRows.includes(r))
      .reduce((n, r) => n + [...r.cells].filter((c) => c.tagName === 'TH').length, 0);
    if (indexCells) add('unstyled DataFrame: index column (' + indexCells + ' th in body rows)', table, name);
    const snake = heads.filter((h) => /^[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+$/.test(h));
    if (snake.length) add('unstyled DataFrame: snake_case header ' + snake.slice(0, 4).join(', ') +
      (snake.length > 4 ? ' (+' + (snake.length - 4) + ')' : ''), table, name);
    const kinds = { 'True/False': 0, 'NaN': 0, 'e-notation': 0 };
    for (const td of table.querySelectorAll('td')) {
      if (td.querySelector('code')) continue;
      const t = td.textContent.trim();
      if (t === 'True' || t === 'False') kinds['True/False']++;
      else if (/^(?:NaN|nan|<NA>|NaT|None)$/.test(t)) kinds['NaN']++;
      else if (/^[-+]?\d+(?:\.\d+)?e[-+]?\d+\b/i.test(t)) kinds['e-notation']++;
    }
    for (const [kind, n] of Object.entries(kinds)) {
      if (n) add('unstyled DataFrame: ' + n + ' ' + kind + ' cell' + (n > 1 ? 's' : ''), table, name);
    }
  }

  for (const img of document.querySelectorAll('img')) {
    if (!shown(img)) continue;
    const label = 'image ' + nth(img, 'img') + ' "' + clip(img.alt, 50) + '"';
    const natural = img.naturalWidth, width = img.getBoundingClientRect().width;
    if (!natural) { add('image that does not load', img, label); continue; }
    const scale = width / natural;
    if (scale < minScale) {
      add('image shown at ' + Math.round(scale * 100) + '% of its natural width (' + natural +
        ' px shown at ' + Math.round(width) + ' px)', img, label);
    }
    const pt = parseFloat(img.dataset.fontPt), dpi = parseFloat(img.dataset.dpi);
    if (!(pt > 0 && dpi > 0)) {
      if (img.src.startsWith('data:image/png')) {
        add('figure without data-font-pt/data-dpi (its text size cannot be checked)', img, label);
      }
      continue;
    }
    const px = pt * dpi / 72 * scale;
    if (px < minTextPx) {
      add('figure text ' + px.toFixed(1) + ' px high as shown (' + pt + ' pt at ' + dpi +
        ' dpi, shown at ' + Math.round(scale * 100) + '%)', img, label);
    }
  }

  for (const pre of document.querySelectorAll('pre')) {
    if (!shown(pre) || isCode(pre) || !pre.textContent.trim()) continue;
    const text = '"' + clip(pre.textContent, 50) + '"';
    if (pre.closest('.jp-OutputArea-output')) {
      add('monospace block of printed output', pre, text);
    } else if (!pre.closest('.highlight, [class*="language-"]') &&
               !pre.querySelector('[class*="language-"]')) {
      add('monospace block without a code language (indented text?)', pre, text);
    }
  }

  for (const h of document.querySelectorAll('li h1, li h2, li h3, li h4, li h5, li h6')) {
    if (shown(h)) add('heading inside a list item', h, '"' + clip(h.textContent, 50) + '"');
  }

  const pathRe = new RegExp(machinePath, 'g'), seedRe = new RegExp(seedName, 'g');
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || el.closest('script, style') || isCode(el) || !shown(el)) continue;
    for (const m of node.data.matchAll(pathRe)) add('machine path', el, m[0]);
    for (const m of node.data.matchAll(seedRe)) add('seed file name', el, m[0]);
  }
  for (const a of document.querySelectorAll('[href], [src]')) {
    const url = a.getAttribute('href') || a.getAttribute('src') || '';
    if (url.startsWith('data:')) continue;
    if (/^(?:file:|\/)/.test(url)) add('machine path in a link', a, url.slice(0, 80));
    for (const m of url.matchAll(seedRe)) add('seed file name in a link', a, m[0]);
  }
  return out;
}
"""


def pages_of(folder: Path) -> list[Path]:
    """The pages of a rendered folder: ``index.html`` first, then every other ``*.html``."""
    pages = sorted(folder.glob("*.html"))
    return sorted(pages, key=lambda p: (p.name != "index.html", p.name))


@contextmanager
def _browser(executable: str | Path = CHROMIUM) -> Iterator[Browser]:
    """A headless Chromium through Playwright; :class:`BrowserMissing` when either is absent."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise BrowserMissing(
            "the browser check needs Playwright for Python (pip install playwright==1.63.0; "
            "make env installs it)"
        ) from None
    if not Path(executable).is_file():
        raise BrowserMissing(
            f"the browser check needs Chromium at {executable} (apt-get install chromium)"
        )
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(executable),
            args=["--host-resolver-rules=MAP * ~NOTFOUND", "--disable-background-networking"],
        )
        try:
            yield browser
        finally:
            browser.close()


def _only(url: str, aborted: list[str] | None = None):
    """A route handler that lets ``url`` (and ``data:``) load, and aborts and records any
    other request."""

    def route(r) -> None:
        request_url = r.request.url
        if request_url == url or request_url.startswith(("data:", "about:")):
            r.continue_()
        else:
            if aborted is not None:
                aborted.append(request_url)
            r.abort()

    return route


def _check_page(browser, page_path: Path) -> list[Finding]:
    url = page_path.resolve().as_uri()
    name = page_path.name
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
    findings: list[Finding] = []
    requests: list[str] = []
    try:
        context.route("**/*", _only(url, requests))
        page = context.new_page()
        page.on(
            "console",
            lambda m: (
                findings.append(Finding(name, f"console {m.type}: {m.text[:200]}", "console"))
                if m.type in ("error", "assert")
                else None
            ),
        )
        page.on(
            "pageerror",
            lambda e: findings.append(Finding(name, f"uncaught exception: {e}"[:200], "console")),
        )
        page.goto(url, wait_until="load")
        page.wait_for_timeout(SETTLE_MS)
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        found = page.evaluate(
            _DOM_CHECKS, [MIN_IMAGE_SCALE, MIN_TEXT_PX, MACHINE_PATH.pattern, SEED_NAME.pattern]
        )
        findings += [Finding(name, f["what"], f["where"]) for f in found]
        findings += [Finding(name, "request other than the page", u[:120]) for u in requests]
    finally:
        context.close()
    # The page's console messages about the aborted requests repeat the request findings.
    return [
        f
        for f in findings
        if not (requests and f.where == "console" and "net::ERR_FAILED" in f.what)
    ]


def check_pages(pages: Iterable[Path], executable: str | Path = CHROMIUM) -> list[Finding]:
    """The findings of each page, in order (see the module docstring)."""
    with _browser(executable) as browser:
        return [f for page in pages for f in _check_page(browser, Path(page))]


def check_folder(folder: Path, executable: str | Path = CHROMIUM) -> list[Finding]:
    """The findings of every page of a rendered reports folder (:func:`pages_of`)."""
    folder = Path(folder)
    pages = pages_of(folder)
    if not pages:
        raise UsageError(f"--check: no *.html page in {folder} (render it with trackerlab report)")
    return check_pages(pages, executable)


def _palette_png(png: bytes) -> bytes:
    """``png`` with a 256-colour palette: about a third of the bytes, the text as sharp (pages
    are mostly flat colours). Pillow comes with matplotlib. O(pixels)."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        palette = image.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    out = io.BytesIO()
    palette.save(out, format="PNG", optimize=True)
    return out.getvalue()


def screenshots(
    folder: Path,
    names: Iterable[str],
    out: Path,
    label: str,
    executable: str | Path = CHROMIUM,
) -> list[Path]:
    """Full-page PNGs (1280 px wide viewport, 256-colour palette) of ``index`` and each of
    ``names``, written atomically as ``out/NAME-LABEL.png``; requests other than the page
    are aborted."""
    folder = Path(folder)
    pages = [folder / f"{n}.html" for n in ("index", *names)]
    missing = [p.name for p in pages if not p.is_file()]
    if missing:
        raise UsageError(f"--screenshots: {', '.join(missing)} not found in {folder}")
    written = []
    with _browser(executable) as browser:
        for page_path in pages:
            context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
            try:
                url = page_path.resolve().as_uri()
                context.route("**/*", _only(url))
                page = context.new_page()
                page.goto(url, wait_until="load")
                png = _palette_png(page.screenshot(full_page=True, type="png"))
            finally:
                context.close()
            Path(out).mkdir(parents=True, exist_ok=True)
            target = Path(out) / f"{page_path.stem}-{label}.png"
            atomic_write_bytes(target, png)
            written.append(target)
    return written
