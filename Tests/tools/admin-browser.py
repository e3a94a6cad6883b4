#!/usr/bin/env python3
"""The relay's admin web page in a real browser: Debian's headless chromium driven by
chromium-driver through selenium. Run by AdminBrowserTests with a relay it started;
every input comes from the environment:

  RELAY          http://127.0.0.1:PORT
  ADMIN_CODE     a sign-in code of the admin (vfs-relay login-code)
  ADMIN_CODE2    a second code of the admin (vfs-device admin-link), for a second session
  MEMBER_CODE    a sign-in code stored for a user who is not an administrator
  DEVICE_TOKEN   an enrolled device's token, to read the items through the REST API
  REVOKE_ID      the id of the device to revoke, REVOKE_NAME its name
  WORK           a folder for the browser profiles, screenshots (WORK/screenshots) and
                 the process group id (WORK/pgid)

Prints one line per step and exits 0 when every check held, 1 at the first that did not.
Browsers and drivers are quit in `finally`; the caller also kills the process group this
script makes, whatever happened."""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

from browser_setup import WORK, Failed, check

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import NoAlertPresentException, WebDriverException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

RELAY = os.environ["RELAY"]
ADMIN = RELAY + "/admin/"
SHOTS = os.path.join(WORK, "screenshots")
os.makedirs(SHOTS, exist_ok=True)
drivers = []


def browser(name):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--window-size=1280,900", "--user-data-dir=" + os.path.join(WORK, "profile-" + name)]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver", log_output=os.path.join(WORK, name + "-driver.log")),
                              options=options)
    drivers.append(driver)
    driver.set_page_load_timeout(60)
    driver.implicitly_wait(5)
    return driver


def shot(driver, name):
    path = os.path.join(SHOTS, name + ".png")
    driver.save_screenshot(path)
    print("screenshot:", path, flush=True)


def text(driver):
    return driver.find_element(By.TAG_NAME, "body").text


def fill(driver, field, value):
    element = driver.find_element(By.ID, field)
    element.clear()
    element.send_keys(value)


def follow(driver, element):
    """Clicks a link or a submit button and waits until the next page has replaced this one
    (reading the page right after a click can otherwise see the old one, or a stale element)."""
    # The old page is marked in its window; the next page's window has no mark. (Watching the
    # old element go stale is not enough: chromedriver can answer "Node with given id does not
    # belong to the document" instead of "stale element", which the stock condition lets through.)
    driver.execute_script("window.vfsOldPage = true")
    element.click()

    def next_page_loaded(driver):
        return driver.execute_script("return !window.vfsOldPage && document.readyState === 'complete'")

    WebDriverWait(driver, 60, ignored_exceptions=(WebDriverException,)).until(next_page_loaded)


def sign_in(driver, code):
    driver.get(ADMIN)
    check(driver.current_url.endswith("/admin/sign-in"), "the page sends a visitor without a session to sign in")
    fill(driver, "code", code)
    follow(driver, driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]"))


def rest_items():
    request = urllib.request.Request(RELAY + "/v1/items", headers={"Authorization": "Bearer " + os.environ["DEVICE_TOKEN"]})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def post_with_cookie(cookie, path, fields):
    """A POST from outside the browser that carries the session cookie."""
    body = urllib.parse.urlencode(fields).encode()
    request = urllib.request.Request(RELAY + path, data=body, method="POST", headers={
        "Cookie": "vfs_admin=" + cookie, "Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def no_alert(driver):
    try:
        driver.switch_to.alert
        return False
    except NoAlertPresentException:
        return True


def main():
    first = browser("first")
    sign_in(first, os.environ["ADMIN_CODE"])
    check(first.current_url.endswith("/admin/items"), "a code signs in and lands on the approved apps")
    session = next(c for c in first.get_cookies() if c["name"] == "vfs_admin")
    check(session["httpOnly"] and session["secure"] and session["sameSite"] == "Strict" and "expiry" in session,
          "the session cookie is HttpOnly, Secure, SameSite=Strict and expires (kept by chromium on http://127.0.0.1)")

    # Add an app whose name holds markup.
    follow(first, first.find_element(By.LINK_TEXT, "Add an app"))
    fill(first, "app", "com.example.viewer")
    fill(first, "name", "<script>alert('x')</script> Viewer")
    fill(first, "groups", "finance")
    fill(first, "types", "pdf, txt")
    follow(first, first.find_element(By.CSS_SELECTOR, "main form:not(.danger) button[type=submit]"))
    check("Added com.example.viewer." in text(first), "the new app is added")
    row = first.find_element(By.XPATH, "//table[@id='items']//th[text()='com.example.viewer']/..")
    check("<script>alert('x')</script> Viewer" in row.text, "a name containing <script> is shown as text")
    check(no_alert(first) and not first.find_elements(By.CSS_SELECTOR, "main script"), "and never runs")
    shot(first, "items")
    listed = [item for item in rest_items() if item["app"] == "com.example.viewer"]
    check(len(listed) == 1 and listed[0]["types"] == ["pdf", "txt"] and listed[0]["groups"] == ["finance"],
          "an enrolled device reads the new app through GET /v1/items")

    # The table sorts and filters.
    fill(first, "q", "nothing-like-this")
    follow(first, first.find_element(By.CSS_SELECTOR, "form.filter button"))
    check(not first.find_elements(By.XPATH, "//table[@id='items']/tbody/tr"), "a filter that matches nothing empties the table")
    first.get(ADMIN + "items")

    # Two sessions edit the same item: the second save wins, the first is shown the conflict.
    follow(first, first.find_element(By.CSS_SELECTOR, "a[aria-label='Edit com.example.viewer']"))
    second = browser("second")
    sign_in(second, os.environ["ADMIN_CODE2"])
    check(second.current_url.endswith("/admin/items"), "a code from vfs-device admin-link signs in a second session")
    follow(second, second.find_element(By.CSS_SELECTOR, "a[aria-label='Edit com.example.viewer']"))
    fill(second, "name", "Viewer B")
    follow(second, second.find_element(By.CSS_SELECTOR, "main form:not(.danger) button[type=submit]"))
    check("Saved com.example.viewer." in text(second), "the second session saves its edit")
    fill(first, "name", "Viewer A")
    first.find_element(By.ID, "enabled").click()
    follow(first, first.find_element(By.CSS_SELECTOR, "main form:not(.danger) button[type=submit]"))
    page = text(first)
    check("Not saved: another administrator changed com.example.viewer after you opened it." in page,
          "the first session's save is refused with the conflict shown")
    check(first.find_element(By.CSS_SELECTOR, "dl.current").text.count("Viewer B") == 1, "it shows what is stored now")
    check(first.find_element(By.ID, "name").get_attribute("value") == "Viewer A", "and keeps what the admin typed")
    shot(first, "conflict")
    stored = [item for item in rest_items() if item["app"] == "com.example.viewer"][0]
    check(stored["name"] == "Viewer B" and stored["enabled"], "the other admin's version was not overwritten")

    # The server's validation message.
    first.get(ADMIN + "items/new")
    fill(first, "app", "-bad")
    follow(first, first.find_element(By.CSS_SELECTOR, "main form button[type=submit]"))
    check('invalid app "-bad"' in first.find_element(By.CSS_SELECTOR, "[role=alert]").text, "a bad app shows the server's message")
    shot(first, "validation")

    # A form submitted without its CSRF token, and a request from outside with the cookie only.
    first.get(ADMIN + "items/new")
    fill(first, "app", "no-token-app")
    first.execute_script("document.querySelector('main form input[name=csrf]').remove()")
    follow(first, first.find_element(By.CSS_SELECTOR, "main form button[type=submit]"))
    check("security token is missing or wrong" in text(first), "a form without the CSRF token is refused")
    check(post_with_cookie(session["value"], "/admin/items", {"app": "forged"}) == 403, "a POST with the cookie but no token is refused")
    check(not [item for item in rest_items() if item["app"] in ("no-token-app", "forged")], "and neither added anything")

    # Devices: revoke one, with a confirmation.
    first.get(ADMIN + "devices")
    check(os.environ["REVOKE_NAME"] in text(first), "the devices page lists the organisation's devices")
    shot(first, "devices")
    follow(first, first.find_element(By.CSS_SELECTOR, "a[href='/admin/devices/%s/revoke']" % os.environ["REVOKE_ID"]))
    check(("Revoke %s?" % os.environ["REVOKE_NAME"]) in text(first), "revoking asks for a confirmation")
    shot(first, "revoke-confirm")
    follow(first, first.find_element(By.CSS_SELECTOR, "main form button[type=submit]"))
    check(("Revoked %s." % os.environ["REVOKE_NAME"]) in text(first), "the device is revoked")

    first.get(ADMIN + "transfers")
    check("Transfers in flight: 1" in text(first), "the outbox shows the transfer in flight")
    shot(first, "outbox")
    first.get(ADMIN + "audit")
    fill(first, "q", "admin.revoke")
    follow(first, first.find_element(By.CSS_SELECTOR, "form.filter button"))
    rows = first.find_elements(By.XPATH, "//table[@id='audit']/tbody/tr")
    check(len(rows) == 1 and os.environ["REVOKE_ID"] in rows[0].text, "the audit log filters to the revoke")
    first.get(ADMIN + "audit?q=item.update")
    check("Viewer B" in text(first), "and records the item's update")
    shot(first, "audit")

    # A member's code does not sign in.
    third = browser("third")
    sign_in(third, os.environ["MEMBER_CODE"])
    check(third.current_url.endswith("/admin/sign-in") and "does not sign anyone in" in text(third),
          "a code of a user who is not an administrator is refused")
    check(not [c for c in third.get_cookies() if c["name"] == "vfs_admin"], "and sets no session cookie")
    shot(third, "sign-in-refused")

    # Sign out, then be refused.
    follow(first, first.find_element(By.CSS_SELECTOR, "form.signout button"))
    check("You are signed out." in text(first), "signing out lands on the sign-in page")
    first.get(ADMIN + "items")
    check(first.current_url.endswith("/admin/sign-in"), "after signing out the pages need a new sign-in")
    check(post_with_cookie(session["value"], "/admin/sign-out", {}) == 403, "the old cookie is refused by the server")
    shot(first, "signed-out")


try:
    main()
    print("all checks held", flush=True)
    status = 0
except Exception as failure:  # noqa: BLE001 (a check, or selenium not finding an element)
    print("FAILED:", failure, flush=True)
    for index, driver in enumerate(drivers):
        try:
            shot(driver, "failure-%d" % index)
            print("page %d: %s\n%s" % (index, driver.current_url, text(driver)[:2000]), flush=True)
        except Exception:  # noqa: BLE001 (the failure report must not hide the failure)
            pass
    status = 1
finally:
    for driver in drivers:
        try:
            driver.quit()
        except Exception:  # noqa: BLE001
            pass
sys.exit(status)
