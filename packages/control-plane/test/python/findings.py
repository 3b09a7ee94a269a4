"""Runs one case against the control plane through the official Python client (Debian's
python3-kubernetes) and prints what it observed as JSON. Usage: findings.py KUBECONFIG CASE."""

import json
import sys
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

config.load_kube_config(config_file=sys.argv[1])
api = client.ApiClient()
core = client.CoreV1Api(api)
apps = client.AppsV1Api(api)
NS = "default"


def failure(err):
    """The status code and Status body of a refused request."""
    body = json.loads(err.body) if err.body else {}
    return {"code": err.status, "body": body}


def attempt(fn):
    try:
        result = fn()
        return {"code": 200, "result": api.sanitize_for_serialization(result)}
    except ApiException as err:
        return failure(err)


def cm(name, **extra):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **extra}, "data": {"k": "v"}}


def exists(name):
    try:
        core.read_namespaced_config_map(name, NS)
        return True
    except ApiException as err:
        if err.status == 404:
            return False
        raise


def raw(method, path, body=None, content_type="application/json"):
    try:
        data, status, _ = api.call_api(
            path, method, header_params={"Content-Type": content_type, "Accept": "application/json"},
            body=body, auth_settings=["BearerToken"], _preload_content=False, response_type=None,
        )
        return {"code": status, "body": json.loads(data.data or b"{}")}
    except ApiException as err:
        return failure(err)


def case_watch():
    core.create_namespaced_config_map(NS, cm("watched"))
    started = time.time()
    seen = []
    for event in watch.Watch().stream(core.list_namespaced_config_map, NS, timeout_seconds=2, allow_watch_bookmarks=True):
        seen.append([event["type"], event["object"].metadata.name])
        if len(seen) > 50:
            break
    return {"events": seen, "seconds": time.time() - started}


def case_configmap_data_number():
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "numbers"}, "data": {"a": 1}}
    return {"create": attempt(lambda: core.create_namespaced_config_map(NS, body)), "stored": exists("numbers")}


def case_owner_references():
    no_uid = cm("orphan-ref", ownerReferences=[{"apiVersion": "v1", "kind": "ConfigMap", "name": "x"}])
    two = cm("two-controllers", ownerReferences=[
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "a", "uid": "u-a", "controller": True},
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "b", "uid": "u-b", "controller": True},
    ])
    return {
        "noUid": attempt(lambda: core.create_namespaced_config_map(NS, no_uid)),
        "twoControllers": attempt(lambda: core.create_namespaced_config_map(NS, two)),
        "stored": [exists("orphan-ref"), exists("two-controllers")],
    }


def case_bogus_options():
    core.create_namespaced_config_map(NS, cm("kept"))
    return {
        "dryRun": attempt(lambda: core.create_namespaced_config_map(NS, cm("dry"), dry_run="Bogus")),
        "dryRunStored": exists("dry"),
        "propagation": attempt(lambda: core.delete_namespaced_config_map("kept", NS, propagation_policy="Bogus")),
        "keptExists": exists("kept"),
    }


def case_uid_change():
    created = core.create_namespaced_config_map(NS, cm("uid-cm"))
    created.metadata.uid = "00000000-0000-0000-0000-000000000000"
    return {"put": attempt(lambda: core.replace_namespaced_config_map("uid-cm", NS, created)), "uid": created.metadata.uid}


def case_strategic_merge():
    labels = {"app": "smp"}
    deployment = {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "smp"},
        "spec": {"selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": {
            "containers": [{"name": "c", "image": "nginx"}],
            "tolerations": [{"key": "a", "operator": "Exists"}],
        }}},
    }
    apps.create_namespaced_deployment(NS, deployment)
    core.create_namespaced_config_map(NS, cm("smp-cm"))
    patched = apps.patch_namespaced_deployment("smp", NS, {"spec": {"template": {"spec": {"tolerations": [{"key": "b", "operator": "Exists"}]}}}})
    bogus = attempt(lambda: core.patch_namespaced_config_map("smp-cm", NS, {"metadata": {"labels": {"$patch": "Bogus"}}}))
    return {"tolerations": [t.key for t in patched.spec.template.spec.tolerations], "bogus": bogus}


def case_paging():
    for i in range(5):
        core.create_namespaced_config_map(NS, cm(f"page-{i}", labels={"paging": "yes"}))
    first = core.list_namespaced_config_map(NS, label_selector="paging=yes", limit=2)
    core.delete_namespaced_config_map("page-3", NS)
    core.create_namespaced_config_map(NS, cm("page-9", labels={"paging": "yes"}))
    second = core.list_namespaced_config_map(NS, label_selector="paging=yes", limit=2, _continue=first.metadata._continue)
    third = core.list_namespaced_config_map(NS, label_selector="paging=yes", limit=2, _continue=second.metadata._continue)
    for i in range(60):  # more writes than the history keeps: the snapshot is compacted away
        core.patch_namespaced_config_map("page-0", NS, {"data": {"n": str(i)}})
    expired = attempt(lambda: core.list_namespaced_config_map(NS, label_selector="paging=yes", limit=2, _continue=first.metadata._continue))
    fresh = expired["body"].get("metadata", {}).get("continue")
    resumed = core.list_namespaced_config_map(NS, label_selector="paging=yes", limit=10, _continue=fresh) if fresh else None
    return {
        "pages": [[i.metadata.name for i in page.items] for page in (first, second, third)],
        "versions": [page.metadata.resource_version for page in (first, second, third)],
        "expired": expired,
        "resumed": [i.metadata.name for i in resumed.items] if resumed else None,
    }


def case_http():
    core.create_namespaced_config_map(NS, cm("deleted"))
    return {
        "putCollection": raw("PUT", f"/api/v1/namespaces/{NS}/configmaps", body=cm("x")),
        "textPlain": raw("POST", f"/api/v1/namespaces/{NS}/configmaps", body=json.dumps(cm("plain")), content_type="text/plain"),
        "delete": api.sanitize_for_serialization(core.delete_namespaced_config_map("deleted", NS)),
    }


def case_strict():
    body = cm("strict")
    body["spec"] = {"typo": 1}
    return {
        "strict": raw("POST", f"/api/v1/namespaces/{NS}/configmaps?fieldValidation=Strict", body=body),
        "stored": exists("strict"),
    }


print(json.dumps(globals()["case_" + sys.argv[2]]()))
