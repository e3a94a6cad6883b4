# schemathesis hooks (SCHEMATHESIS_HOOKS) of the OpenAPI conformance test
# (Tests/EndToEndTests/OpenAPITests.swift).
import schemathesis


@schemathesis.serializer("application/offset+octet-stream")
def tus_body(ctx, value):
    """tus PATCH bodies are raw bytes; generated strings go as UTF-8."""
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return str(value).encode("utf-8")


@schemathesis.check
def route_exists(ctx, response, case):
    """A documented operation the server has no route for answers the router's own
    404/405; fail then, whatever the document allows for that status."""
    if case.method.upper() != case.operation.method.upper():
        return None  # an undocumented method, sent on purpose
    if response.status_code in (404, 405):
        try:
            body = response.json()
        except Exception:
            body = None
        if isinstance(body, dict) and (body.get("message") == "no such route" or body.get("error") == "method_not_allowed"):
            raise AssertionError(
                f"the document has {case.operation.method.upper()} {case.operation.path}, the relay has no such route")
