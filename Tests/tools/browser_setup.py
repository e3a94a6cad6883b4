"""What the Chromium test scripts (admin-browser.py, share-browser.py) share: the process
group the calling test kills when it ends, selenium kept off the network, and the checks
that print one line per step. Import it first: it makes the process group at once."""
import os

# A process group of our own: chromedriver and chromium inherit it, so the test can kill
# whatever is left with one signal.
os.setpgid(0, 0)
WORK = os.environ["WORK"]
with open(os.path.join(WORK, "pgid"), "w") as f:
    f.write(str(os.getpgrp()))
os.environ["SE_OFFLINE"] = "true"  # selenium must not look for a driver on the network


class Failed(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failed(what)
    print("ok:", what, flush=True)
