"""Debian's Chromium, headless, driven by selenium through Debian's
chromedriver (make deps installs chromium, chromium-driver and selenium;
no browser is downloaded). Without the background-networking flags
Chromium tries Google's hosts at every start, which a closed network
refuses."""
import contextlib
import tempfile

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@contextlib.contextmanager
def chromium(width=1280, height=900, javascript=True):
    """A selenium WebDriver of a fresh headless Chromium (its own empty
    profile), quit afterwards."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in FLAGS + [f"--user-data-dir={profile}", f"--window-size={width},{height}"]:
            options.add_argument(flag)
        if not javascript:
            options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        try:
            yield driver
        finally:
            driver.quit()
