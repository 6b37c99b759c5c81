"""Used by tests/e2e/archive_put.rs. Gives a moto server an IAM user allowed everything,
prints that user's access key as one JSON line, then turns moto's request authentication
on: from then on moto checks each request's SigV4 signature (with botocore's signer)
against the key it names, and refuses a request whose signature differs.

Usage: python s3_iam_user.py http://127.0.0.1:PORT
"""

import json
import sys
import urllib.request

import boto3


def main() -> None:
    endpoint = sys.argv[1]
    iam = boto3.client(
        "iam",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    iam.create_user(UserName="archive")
    everything = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}],
    }
    iam.put_user_policy(
        UserName="archive", PolicyName="everything", PolicyDocument=json.dumps(everything)
    )
    key = iam.create_access_key(UserName="archive")["AccessKey"]
    # The number of requests moto serves before it authenticates: none from now on.
    # Not urllib's default form type, whose body Flask would parse away.
    request = urllib.request.Request(
        f"{endpoint}/moto-api/reset-auth",
        data=b"0",
        method="POST",
        headers={"Content-Type": "text/plain"},
    )
    with urllib.request.urlopen(request) as answer:
        answer.read()
    print(json.dumps({"access_key_id": key["AccessKeyId"], "secret": key["SecretAccessKey"]}))


if __name__ == "__main__":
    main()
