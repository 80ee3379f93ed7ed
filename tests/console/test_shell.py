"""The console's shell in Chromium: routes, pages as modules, who it talks as."""

from __future__ import annotations

from pathlib import Path


def test_noauth2_opens_at_once_as_admin_on_the_capacity_page(page, small_cloud):
    base, _ids = small_cloud
    requests = []
    page.on("request", lambda r: requests.append((r.url, r.headers.get("x-auth-token"))))
    page.goto(f"{base}/console")
    page.locator(".tree").first.wait_for()
    assert page.url.endswith("/console/#/capacity")
    assert page.locator("#token-dialog").is_hidden()
    assert page.locator("#identity").text_content() == "noauth2 · admin"
    assert page.locator("nav a.current").text_content() == "Capacity"
    api_calls = [token for url, token in requests if "/console/api/" in url]
    assert api_calls and set(api_calls) == {"admin"}
    # Nothing comes from elsewhere.
    assert all(url.startswith(base) for url, _token in requests)


def test_each_route_loads_its_page(page, small_cloud, artifacts: Path):
    base, _ids = small_cloud
    page.goto(f"{base}/console/#/why")
    page.locator(".page-why .coming").wait_for()
    assert page.locator("nav a.current").text_content() == "Why no candidate?"
    page.screenshot(path=str(artifacts / "why.png"))
    page.locator('nav a[data-page="plans"]').click()
    page.locator(".page-plans .plan-list").wait_for()
    page.locator(".plan-list .empty").wait_for()
    page.go_back()
    page.locator(".page-why .coming").wait_for()
    page.goto(f"{base}/console/#/nowhere")
    page.locator(".page-capacity .tree").first.wait_for()


def test_another_token_is_used_from_then_on_and_its_403_is_shown(page, small_cloud):
    base, _ids = small_cloud
    page.goto(f"{base}/console/#/capacity")
    page.locator(".tree").first.wait_for()
    page.locator("#change-token").click()
    page.locator("#token-input").fill("someone")
    page.locator("#token-ok").click()
    alert = page.locator(".page-capacity .error[role=alert]")
    alert.wait_for()
    assert alert.text_content().startswith("403 Forbidden: ")
    assert "Policy does not allow placement:console:capacity to be performed." in (
        alert.text_content()
    )
    assert page.locator("#identity").text_content() == "noauth2 · someone"
