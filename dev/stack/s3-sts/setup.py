# Provisions the s3-sts component (moto server) once after start: an IAM user with an access key
# allowed to assume one role, the role (S3 access), the buckets; then turns IAM authentication on
# (moto's /moto-api/reset-auth), so every later request is SigV4-verified against these keys, and
# session credentials from STS AssumeRole must carry their exact session token.
# Writes the user's keys and the role ARN to argv[2] (a JSON file in the stack's state dir).
# Dev tooling; run by dev/stack/components/s3-sts.ts with the component's venv python.
import json
import sys
import urllib.request

import boto3

endpoint, out_path, region, buckets = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
kw = dict(endpoint_url=endpoint, region_name=region, aws_access_key_id="setup", aws_secret_access_key="setup")
iam = boto3.client("iam", **kw)
s3 = boto3.client("s3", **kw)

allow_all = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["s3:*", "sts:*"], "Resource": "*"}]}
iam.create_user(UserName="him")
key = iam.create_access_key(UserName="him")["AccessKey"]
iam.put_user_policy(UserName="him", PolicyName="him", PolicyDocument=json.dumps(allow_all))
account = "123456789012"
trust = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{account}:user/him"}, "Action": "sts:AssumeRole"}],
}
role = iam.create_role(RoleName="him-reader", AssumeRolePolicyDocument=json.dumps(trust), MaxSessionDuration=43200)["Role"]
iam.put_role_policy(RoleName="him-reader", PolicyName="s3", PolicyDocument=json.dumps(allow_all))
for b in buckets:
    s3.create_bucket(Bucket=b)

req = urllib.request.Request(f"{endpoint}/moto-api/reset-auth", data=b"0", method="POST", headers={"Content-Type": "text/plain"})
urllib.request.urlopen(req, timeout=10).read()

with open(out_path, "w") as f:
    json.dump({"accessKeyId": key["AccessKeyId"], "secretAccessKey": key["SecretAccessKey"], "roleArn": role["Arn"]}, f)
