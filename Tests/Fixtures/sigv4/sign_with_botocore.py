#!/usr/bin/env python3
"""Makes botocore.json: S3 requests signed by botocore (S3SigV4Auth, the signer of boto3 and the
AWS CLI) at a fixed time, for SigV4SignerTests to compare ours with. The URL's path is built here
with botocore's own key encoding (percent_encode, as its serializer encodes a Key), not ours.
Run: python3 Tests/Fixtures/sigv4/sign_with_botocore.py > Tests/Fixtures/sigv4/botocore.json"""
import datetime
import hashlib
import json
import sys

import botocore
import botocore.config
import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.utils import percent_encode

FIXED = datetime.datetime(2026, 11, 27, 1, 2, 3)
botocore.auth.get_current_datetime = lambda: FIXED

ACCESS, SECRET = "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"

CASES = [
    dict(name="get, path style, loopback endpoint", endpoint="http://127.0.0.1:9000", region="us-east-1", path_style=True,
         bucket="photos", key="sku-1/IMG_1.jpg", method="GET", headers=[], body=""),
    dict(name="get, a key with every awkward byte", endpoint="http://127.0.0.1:9000", region="us-east-1", path_style=True,
         bucket="photos", key="a b/c?d#e%f+g=h&i;j:k@l,m/\u00fc\u1234~.jpg", method="GET", headers=[], body=""),
    dict(name="conditional get with a session token", endpoint="https://minio.internal:9443", region="eu-central-1", path_style=True,
         bucket="shop.images", key="x/y.png", method="GET", token="FQoGZXIvYXdzEXAMPLETOKEN/+=",
         headers=[["if-none-match", "\"abc\""], ["if-modified-since", "Wed, 21 Oct 2026 07:28:00 GMT"]], body=""),
    dict(name="put of a cached output with metadata", endpoint="http://127.0.0.1:9000", region="us-west-1", path_style=True,
         bucket="thumbs", key="cache/0123abcd", method="PUT",
         headers=[["content-type", "image/webp"], ["x-amz-meta-sha256", "00ff"], ["x-amz-meta-quality", "q=71;  ssimulacra2=80.4"]],
         body="not really a webp"),
    dict(name="get, virtual host on AWS", endpoint=None, region="ap-northeast-2", path_style=False,
         bucket="market-photos", key="2026/11/IMG 7.HEIC", method="GET", headers=[], body=""),
]


def sign(case):
    endpoint = case["endpoint"] or "https://s3.%s.amazonaws.com" % case["region"]
    scheme, host = endpoint.split("://")
    key = percent_encode(case["key"], safe="/~")
    if case["path_style"]:
        url = "%s://%s/%s/%s" % (scheme, host, case["bucket"], key)
    else:
        url = "%s://%s.%s/%s" % (scheme, case["bucket"], host, key)
    body = case["body"].encode()
    request = AWSRequest(method=case["method"], url=url, headers=dict(case["headers"]), data=body)
    # Signed payloads, as the service sends them (over https too).
    request.context["client_config"] = botocore.config.Config(s3={"payload_signing_enabled": True})
    credentials = Credentials(ACCESS, SECRET, case.get("token"))
    botocore.auth.S3SigV4Auth(credentials, "s3", case["region"]).add_auth(request)
    expected = {
        "url": url,
        "authorization": request.headers["Authorization"],
        "x-amz-date": request.headers["X-Amz-Date"],
        "x-amz-content-sha256": request.headers["X-Amz-Content-SHA256"],
    }
    assert expected["x-amz-content-sha256"] == hashlib.sha256(body).hexdigest()
    if case.get("token"):
        expected["x-amz-security-token"] = request.headers["X-Amz-Security-Token"]
    return dict(case, expected=expected)


json.dump({"botocore": botocore.__version__, "accessKeyID": ACCESS, "secretAccessKey": SECRET, "time": FIXED.isoformat() + "Z",
           "cases": [sign(case) for case in CASES]}, sys.stdout, indent=1, ensure_ascii=False)
print()
