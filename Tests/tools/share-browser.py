#!/usr/bin/env python3
"""A share link's page in a real browser (issue 51): Debian's headless chromium driven by
chromium-driver through selenium, as admin-browser.py drives the admin page. Run by
ShareBrowserTests with a relay it started and links vfs-share made; every input comes
from the environment:

  LINK           a link with its key (https://RELAY/s/ID#AGE-SECRET-KEY-1…), --downloads 1
  SIZE           the ciphertext's size the page must show
  SHA256         the SHA-256 of the shared file
  PASS_LINK      a link made with --passphrase (no key), PASSPHRASE its passphrase,
                 PASS_SHA256 the SHA-256 of its file
  VECTORS        the folder of age's test vectors (CCTV: header, blank line, the file)
  WORK           a folder for the browser profile, the downloads and the process group id

First the page's cryptography against published vectors, in the page the relay served
(its own script under its CSP): RFC 8439's Poly1305 and ChaCha20-Poly1305, RFC 7748's
X25519 (and Diffie-Hellman), RFC 7914's scrypt, and every age vector (CCTV) that is not
armored or post-quantum: each that must decrypt gives its payload's SHA-256, each other
fails. Then end to end: the link's file downloaded and decrypted by the page equals the
original, byte for byte, written to the download folder while the page still decrypts (the
page's service worker streams it), its connection broken once after 20 MiB (the page carries
on with the relay's VFS-Resume token); the link, used, is the page's 410; the passphrase link,
in a page with no service worker, saved from memory; and TAMPERED_LINK, a link whose stored
ciphertext was changed near its end, fails in the page and leaves no file.
With REQUEST_LINK (a file request's link), instead: its page lists REQUEST_RECIPIENTS
(space-separated), what the page's script encrypts to KEY_RECIPIENT its own decryption
opens with KEY_IDENTITY (age-keygen's), and the page encrypts UPLOAD_FILE and sends it
(the test then fetches it with vfs-fetch).
Prints one line per step and exits 0 when every check held, 1 at the first that did not."""
import base64
import hashlib
import os
import sys
import time
import zlib

from browser_setup import WORK, Failed, check

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

DOWNLOADS = os.path.join(WORK, "downloads")
os.makedirs(DOWNLOADS, exist_ok=True)
drivers = []


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--window-size=1280,900", "--user-data-dir=" + os.path.join(WORK, "profile")]:
        options.add_argument(argument)
    # A second download from the same site is not held for a permission prompt.
    options.add_experimental_option("prefs", {"download.default_directory": DOWNLOADS, "download.prompt_for_download": False,
                                              "profile.default_content_setting_values.automatic_downloads": 1})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    drivers.append(driver)
    driver.set_script_timeout(600)
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": DOWNLOADS})
    return driver


def run(driver, body, *args):
    """Runs `body` (an async function's statements, its arguments as `args`) in the page;
    its return value, or {"error": message}."""
    script = """
        const done = arguments[arguments.length - 1];
        const args = Array.from(arguments).slice(0, -1);
        (async (args) => { %s })(args).then(done, (e) => done({ error: String(e && e.message || e) }));
    """ % body
    return driver.execute_async_script(script, *args)


HELPERS = """
    const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
    const unhex = (h) => new Uint8Array(h.match(/../g).map((x) => parseInt(x, 16)));
"""


def rfc_vectors(driver):
    poly = run(driver, HELPERS + """
        const key = unhex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b");
        return hex(VfsAge.poly1305(key, new TextEncoder().encode("Cryptographic Forum Research Group")));""")
    check(poly == "a8061dc1305136c6c22b8baf0c0127a9", "RFC 8439 §2.5.2 Poly1305 tag (%s)" % poly)
    aead = run(driver, HELPERS + """
        const key = unhex("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f");
        const nonce = unhex("070000004041424344454647"), aad = unhex("50515253c0c1c2c3c4c5c6c7");
        const text = new TextEncoder().encode("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.");
        const sealed = VfsAge.seal(key, nonce, text, aad);
        const opened = VfsAge.open(key, nonce, sealed, aad);
        const tampered = sealed.slice(); tampered[0] ^= 1;
        return { sealed: hex(sealed), opened: new TextDecoder().decode(opened), tampered: VfsAge.open(key, nonce, tampered, aad) === null };""")
    check(aead.get("sealed") == "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b6116"
          + "1ae10b594f09e26a7e902ecbd0600691", "RFC 8439 §2.8.2 AEAD_CHACHA20_POLY1305: ciphertext and tag (%s)" % aead)
    check(aead.get("opened", "").startswith("Ladies and Gentlemen") and aead.get("tampered") is True,
          "RFC 8439 §2.8.2 opens, and a changed byte does not")
    x = run(driver, HELPERS + """
        const a = await VfsAge.x25519(unhex("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4"),
                                      unhex("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c"));
        const b = await VfsAge.x25519(unhex("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d"),
                                      unhex("e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493"));
        const alice = unhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
        const bob = unhex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
        const alicePub = await VfsAge.x25519Public(alice), bobPub = await VfsAge.x25519Public(bob);
        return [hex(a), hex(b), hex(alicePub), hex(bobPub), hex(await VfsAge.x25519(alice, bobPub)), hex(await VfsAge.x25519(bob, alicePub))];""")
    check(x[:2] == ["c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552",
                    "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"], "RFC 7748 §5.2 X25519 (%s)" % x)
    shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
    check(x[2:] == ["8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a",
                    "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f", shared, shared],
          "RFC 7748 §6.1 Diffie-Hellman: both public keys and the shared secret")
    scrypt = run(driver, HELPERS + """
        const enc = new TextEncoder();
        return hex(await VfsAge.scrypt(enc.encode("pleaseletmein"), enc.encode("SodiumChloride"), 14, 8, 64));""")
    check(scrypt == "7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887",
          "RFC 7914 §12 scrypt (N=16384, r=8, p=1)")


def age_vectors(driver):
    folder = os.environ["VECTORS"]
    count = 0
    for name in sorted(os.listdir(folder)):
        if name.startswith("armor") or name.startswith("hybrid"):
            continue
        raw = open(os.path.join(folder, name), "rb").read()
        head, body = raw.split(b"\n\n", 1)
        meta = dict(line.split(": ", 1) for line in head.decode().split("\n"))
        if meta.get("compressed") == "zlib":
            body = zlib.decompress(body)
        got = run(driver, """
            const bytes = Uint8Array.from(atob(args[0]), (c) => c.charCodeAt(0));
            const secret = args[1] ? { identity: VfsAge.parseIdentity(args[1]) } : { passphrase: args[2] };
            let offset = 0;
            const reader = { read: async () => {
                if (offset >= bytes.length) return { done: true };
                const value = bytes.subarray(offset, offset + 7000); offset += 7000; return { value, done: false }; } };
            const parts = [];
            await VfsAge.decryptStream(reader, secret, (chunk) => { parts.push(chunk); });
            const all = new Uint8Array(await new Blob(parts).arrayBuffer());
            const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", all));
            return { sha256: Array.from(digest, (x) => x.toString(16).padStart(2, "0")).join("") };
        """, base64.b64encode(body).decode(), meta.get("identity"), meta.get("passphrase"))
        if meta["expect"] == "success":
            check(got.get("sha256") == meta["payload"], "age vector %s decrypts to its payload (%s)" % (name, got))
        else:
            check("error" in got, "age vector %s is refused (%s: %s)" % (name, meta["expect"], got.get("error")))
        count += 1
    check(count >= 90, "%d age vectors" % count)


def downloaded(before, timeout=600):
    """The one new finished file in DOWNLOADS."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        new = [n for n in os.listdir(DOWNLOADS) if n not in before and not n.endswith(".crdownload")]
        partial = [n for n in os.listdir(DOWNLOADS) if n.endswith(".crdownload")]
        if new and not partial:
            return os.path.join(DOWNLOADS, new[0])
        time.sleep(0.2)
    raise Failed("no download finished")


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def save(driver, passphrase=None, saving="stream", outcome="done"):
    """Clicks the page's button and waits for the page to finish: the saved file's path
    (outcome "done"), or the status it said (outcome "error"). `saving` is how the page
    must save: "stream" (its service worker hands the browser the plaintext as it is
    decrypted) or "memory" (a Blob saved at the end). Returns (result, whether a partial
    download was seen in DOWNLOADS while the page was still decrypting)."""
    before = set(os.listdir(DOWNLOADS))
    root = driver.find_element(By.ID, "share")
    check(root.get_attribute("data-state") == "ready", "the page's script runs under its CSP")
    if passphrase is not None:
        driver.find_element(By.ID, "passphrase").send_keys(passphrase)
    else:
        check(not driver.find_element(By.ID, "passphrase").is_displayed(), "a link with its key asks for no passphrase")
    driver.find_element(By.ID, "download").click()
    partial_seen = False
    deadline = time.time() + 600
    while root.get_attribute("data-state") not in ("done", "error"):
        if any(n.endswith(".crdownload") for n in os.listdir(DOWNLOADS)):
            partial_seen = True
        if time.time() > deadline:
            raise Failed("the page did not finish")
        time.sleep(0.05)
    status = driver.find_element(By.ID, "status").text
    check(root.get_attribute("data-state") == outcome, "the page ends %s: %s" % (outcome, status))
    check(root.get_attribute("data-saving") == saving, "the page saves by %s (%s)" % (saving, root.get_attribute("data-saving")))
    if outcome == "error":
        return status, partial_seen
    return downloaded(before), partial_seen


def settled(before, timeout=120):
    """DOWNLOADS once no download is in progress: the names not in `before`."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        names = set(os.listdir(DOWNLOADS))
        if not any(n.endswith(".crdownload") for n in names):
            return names - before
        time.sleep(0.2)
    raise Failed("a partial download stayed in the download folder: %s" % sorted(os.listdir(DOWNLOADS)))


def request_page(driver):
    """A file request's page: it lists the recipients, encrypts the chosen file in the page
    to them and sends it; the test then fetches it with vfs-fetch and compares."""
    link = os.environ["REQUEST_LINK"]
    recipients = os.environ["REQUEST_RECIPIENTS"].split()
    driver.get(link)
    root = driver.find_element(By.ID, "request")
    listed = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#recipients code")]
    check(listed == recipients, "the request's page lists its recipients (%s)" % listed)
    check(root.get_attribute("data-state") == "ready", "the request page's script runs under its CSP")
    # The page's encryption, opened again in the page with a key age-keygen made: the age
    # header and STREAM it writes are what its own decryption (tested on age's vectors) reads.
    roundtrip = run(driver, HELPERS + """
        const secret = VfsAge.parseIdentity(args[0]), recipient = args[1];
        const plain = new Uint8Array(150000);  // getRandomValues fills at most 64 KiB at once
        for (let o = 0; o < plain.length; o += 65536) crypto.getRandomValues(plain.subarray(o, o + 65536));
        const pieces = [];
        await VfsAge.encryptStream(plain.length, async (o, n) => plain.subarray(o, o + n), [recipient], (p) => { pieces.push(p); });
        const bytes = new Uint8Array(await new Blob(pieces).arrayBuffer());
        let offset = 0;
        const reader = { read: async () => offset >= bytes.length ? { done: true }
            : { value: bytes.subarray(offset, offset += 5000), done: false } };
        const parts = [];
        await VfsAge.decryptStream(reader, { identity: secret }, (c) => { parts.push(c); });
        const back = new Uint8Array(await new Blob(parts).arrayBuffer());
        return { same: hex(back) === hex(plain), stanzas: VfsAge.parseHeader(bytes).stanzas.map((s) => s.type) };""",
        os.environ["KEY_IDENTITY"], os.environ["KEY_RECIPIENT"])
    check(roundtrip.get("same") is True and roundtrip.get("stanzas") == ["X25519"],
          "what the page encrypts, the page's decryption opens (%s)" % roundtrip)
    driver.find_element(By.ID, "file").send_keys(os.environ["UPLOAD_FILE"])
    driver.find_element(By.ID, "upload").click()
    WebDriverWait(driver, 600, poll_frequency=0.5).until(lambda d: root.get_attribute("data-state") in ("done", "error"))
    check(root.get_attribute("data-state") == "done", "encrypted and sent from the page: " + driver.find_element(By.ID, "status").text)


# The first counted download's body breaks after 20 MiB, as a dropped connection would
# (the fetch's reader rejects with a TypeError); the page must carry on with the relay's
# VFS-Resume token and a Range, without counting another download.
BREAK_ONCE = """
(() => {
  const original = window.fetch;
  let broken = false;
  window.fetch = async function (input, init) {
    const response = await original.call(this, input, init);
    const headers = (init && init.headers) || {};
    if (broken || headers["VFS-Resume"] || !String(input).startsWith("/s/") || response.status !== 200) return response;
    broken = true;
    const reader = response.body.getReader();
    let passed = 0;
    const body = new ReadableStream({
      async pull(controller) {
        if (passed >= 20 << 20) {
          reader.cancel();
          controller.error(new TypeError("network error: the test broke the connection"));
          return;
        }
        const { value, done } = await reader.read();
        if (done) { controller.close(); return; }
        passed += value.length;
        controller.enqueue(value);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  window.brokenOnce = () => broken;
})();
"""


def main():
    if "REQUEST_LINK" in os.environ:
        return request_page(browser())
    driver = browser()
    link = os.environ["LINK"]
    breaking = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": BREAK_ONCE})
    driver.get(link)
    check(driver.find_element(By.ID, "size").text == os.environ["SIZE"], "the page shows the size")
    check(driver.find_element(By.ID, "expires").text != "", "the page shows the expiry")
    rfc_vectors(driver)
    age_vectors(driver)
    started = time.time()
    path, partial_seen = save(driver)
    check(sha256(path) == os.environ["SHA256"], "the file the page saved is the original, byte for byte (%d bytes in %.1f s)"
          % (os.path.getsize(path), time.time() - started))
    check(partial_seen, "the download was written as the page decrypted (a partial file while it still ran), not at the end")
    check(driver.execute_script("return window.brokenOnce()") is True,
          "its connection broke after 20 MiB, and the page carried on from there (VFS-Resume)")
    driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": breaking["identifier"]})
    os.remove(path)
    driver.get("about:blank")  # the same URL again would only move to its fragment
    driver.get(link)
    check(driver.find_elements(By.ID, "share-gone"), "its one download used, the link is the page's 410")

    # A browser without service workers (as on a relay over plain HTTP): the page gathers
    # the file in memory and saves it at the end.
    hidden = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                    {"source": "delete Navigator.prototype.serviceWorker;"})
    driver.get(os.environ["PASS_LINK"])
    path, _ = save(driver, passphrase=os.environ["PASSPHRASE"], saving="memory")
    check(sha256(path) == os.environ["PASS_SHA256"], "the passphrase link's file, decrypted in the page, is the original")
    os.remove(path)
    driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": hidden["identifier"]})

    # Ciphertext changed near its end: the download, streamed most of the way, fails, and
    # nothing is left in the download folder, under the file's name or any other.
    before = set(os.listdir(DOWNLOADS))
    driver.get("about:blank")
    driver.get(os.environ["TAMPERED_LINK"])
    status, _ = save(driver, outcome="error")
    check("does not authenticate" in status, "the page says a chunk did not authenticate (%s)" % status)
    left = settled(before)
    check(not left, "a download that failed its check leaves no file (%s)" % sorted(left))


try:
    main()
    print("all checks held")
except Failed as failure:
    print("FAILED:", failure, flush=True)
    sys.exit(1)
finally:
    for driver in drivers:
        try:
            driver.quit()
        except Exception:
            pass
