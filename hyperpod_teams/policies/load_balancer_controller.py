"""The AWS Load Balancer Controller's role (the inference operator's sub-chart): the reference policy,
each write held to the load balancers and security groups the controller tags for this cluster.

Pure layer: no cdktf.
"""

from __future__ import annotations

from hyperpod_teams.policies.documents import in_region_anywhere

ALB_DESCRIBE_ACTIONS = tuple(
    f"ec2:{a}"
    for a in (
        "DescribeAccountAttributes", "DescribeAddresses", "DescribeAvailabilityZones", "DescribeCoipPools",
        "DescribeInstances", "DescribeInternetGateways", "DescribeIpamPools", "DescribeNetworkInterfaces",
        "DescribeRouteTables", "DescribeSecurityGroups", "DescribeSubnets", "DescribeTags",
        "DescribeVpcPeeringConnections", "DescribeVpcs",
    )
) + tuple(
    f"elasticloadbalancing:{a}"
    for a in (
        "DescribeCapacityReservation", "DescribeListenerAttributes", "DescribeListenerCertificates",
        "DescribeListeners", "DescribeLoadBalancerAttributes", "DescribeLoadBalancers", "DescribeRules",
        "DescribeSSLPolicies", "DescribeTags", "DescribeTargetGroupAttributes", "DescribeTargetGroups",
        "DescribeTargetHealth", "DescribeTrustStores",
    )
) + ("acm:ListCertificates", "iam:ListServerCertificates")  # fmt: skip


_ALB_TAG = "elbv2.k8s.aws/cluster"


def alb_controller_policy(*, partition: str, account_id: str, region: str) -> dict:
    """What the AWS Load Balancer Controller bundled with the inference add-on needs to put a load
    balancer in front of an endpoint (its IAM policy, kubernetes-sigs/aws-load-balancer-controller, as the
    reference module writes it), held to the account and region: read the network; create security
    groups, load balancers and target groups tagged with its cluster tag; change and delete only what
    carries that tag. Left out: WAF, Shield and Cognito (no endpoint of a team asks for them)."""
    ec2 = f"arn:{partition}:ec2:{region}:{account_id}"
    elb = f"arn:{partition}:elasticloadbalancing:{region}:{account_id}"
    balancers = [f"{elb}:targetgroup/*/*", f"{elb}:loadbalancer/net/*/*", f"{elb}:loadbalancer/app/*/*"]
    listeners = [f"{elb}:listener/*/*/*/*", f"{elb}:listener-rule/*/*/*/*/*"]
    groups = f"{ec2}:security-group/*"
    tagged = {"Null": {f"aws:ResourceTag/{_ALB_TAG}": "false"}}
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "LoadBalancingServiceLinkedRole",
                "Effect": "Allow",
                "Action": "iam:CreateServiceLinkedRole",
                "Resource": f"arn:{partition}:iam::{account_id}:role/aws-service-role/"
                "elasticloadbalancing.amazonaws.com/AWSServiceRoleForElasticLoadBalancing",
                "Condition": {"StringEquals": {"iam:AWSServiceName": "elasticloadbalancing.amazonaws.com"}},
            },
            in_region_anywhere("ReadTheNetwork", ALB_DESCRIBE_ACTIONS, region),
            {
                "Sid": "ReadSecurityGroupsOfTheVpcs",
                "Effect": "Allow",
                "Action": ["ec2:GetSecurityGroupsForVpc"],
                "Resource": [f"{ec2}:vpc/*", groups],
            },
            {
                "Sid": "ReadCertificates",
                "Effect": "Allow",
                "Action": ["acm:DescribeCertificate", "iam:GetServerCertificate"],
                "Resource": [
                    f"arn:{partition}:acm:{region}:{account_id}:certificate/*",
                    f"arn:{partition}:iam::{account_id}:server-certificate/*",
                ],
            },
            {
                "Sid": "CreateSecurityGroupsTagged",
                "Effect": "Allow",
                "Action": ["ec2:CreateSecurityGroup"],
                "Resource": [groups, f"{ec2}:vpc/*"],
            },
            {
                "Sid": "TagSecurityGroupsItCreates",
                "Effect": "Allow",
                "Action": "ec2:CreateTags",
                "Resource": groups,
                "Condition": {
                    "StringEquals": {"ec2:CreateAction": "CreateSecurityGroup"},
                    "Null": {f"aws:RequestTag/{_ALB_TAG}": "false"},
                },
            },
            {
                # The targets' security groups (the nodes') let the balancer in: the controller adds rules
                # to groups it did not create.
                "Sid": "OpenTargetsToItsBalancers",
                "Effect": "Allow",
                "Action": ["ec2:AuthorizeSecurityGroupIngress", "ec2:RevokeSecurityGroupIngress"],
                "Resource": groups,
            },
            {
                "Sid": "ManageItsSecurityGroups",
                "Effect": "Allow",
                "Action": ["ec2:CreateTags", "ec2:DeleteTags", "ec2:DeleteSecurityGroup"],
                "Resource": groups,
                "Condition": tagged,
            },
            {
                "Sid": "CreateBalancersTagged",
                "Effect": "Allow",
                "Action": ["elasticloadbalancing:CreateLoadBalancer", "elasticloadbalancing:CreateTargetGroup"],
                "Resource": balancers,
                "Condition": {"Null": {f"aws:RequestTag/{_ALB_TAG}": "false"}},
            },
            {
                "Sid": "TagWhileCreating",
                "Effect": "Allow",
                "Action": "elasticloadbalancing:AddTags",
                "Resource": balancers,
                "Condition": {
                    "StringEquals": {"elasticloadbalancing:CreateAction": ["CreateTargetGroup", "CreateLoadBalancer"]},
                    "Null": {f"aws:RequestTag/{_ALB_TAG}": "false"},
                },
            },
            {
                "Sid": "ManageItsBalancers",
                "Effect": "Allow",
                "Action": [
                    "elasticloadbalancing:AddTags",
                    "elasticloadbalancing:RemoveTags",
                    "elasticloadbalancing:DeleteLoadBalancer",
                    "elasticloadbalancing:DeleteTargetGroup",
                    "elasticloadbalancing:ModifyCapacityReservation",
                    "elasticloadbalancing:ModifyLoadBalancerAttributes",
                    "elasticloadbalancing:ModifyTargetGroup",
                    "elasticloadbalancing:ModifyTargetGroupAttributes",
                    "elasticloadbalancing:SetIpAddressType",
                    "elasticloadbalancing:SetSecurityGroups",
                    "elasticloadbalancing:SetSubnets",
                ],
                "Resource": balancers,
                "Condition": tagged,
            },  # fmt: skip
            {
                "Sid": "ListenersAndRulesOfItsBalancers",
                "Effect": "Allow",
                "Action": [
                    "elasticloadbalancing:AddListenerCertificates",
                    "elasticloadbalancing:AddTags",
                    "elasticloadbalancing:CreateListener",
                    "elasticloadbalancing:CreateRule",
                    "elasticloadbalancing:DeleteListener",
                    "elasticloadbalancing:DeleteRule",
                    "elasticloadbalancing:ModifyListener",
                    "elasticloadbalancing:ModifyListenerAttributes",
                    "elasticloadbalancing:ModifyRule",
                    "elasticloadbalancing:RemoveListenerCertificates",
                    "elasticloadbalancing:RemoveTags",
                    "elasticloadbalancing:SetRulePriorities",
                ],
                "Resource": [*balancers, *listeners],
            },  # fmt: skip
            {
                "Sid": "RegisterTargets",
                "Effect": "Allow",
                "Action": ["elasticloadbalancing:DeregisterTargets", "elasticloadbalancing:RegisterTargets"],
                "Resource": f"{elb}:targetgroup/*/*",
            },
        ],
    }
