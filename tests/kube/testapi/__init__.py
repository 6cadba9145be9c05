"""jaxset's test Kubernetes API server (Python standard library only).

It speaks the wire protocol of kube-apiserver for what a controller and kubectl use:
discovery, CRUD with uid/generateName/generation/resourceVersion, the status subresource,
selectors, paginated lists, chunked watch streams with bookmarks, 409/410/422 Status errors,
owner-reference garbage collection, CRDs with structural-schema pruning, and fault injection.
Entry point: tests/kube/apiserver.py (see `--help`); the layout:

  errors.py      Status errors          store.py     multi-version object store
  validation.py  names, labels, meta    ops.py       create/get/list/update/patch/delete
  selectors.py   label/field selectors  watch.py     watch streams
  patch.py       merge/JSON/strategic   controllers.py  GC, namespaces, CRDs, PVC protection
  schema.py      CRD structural schemas resources.py resource types, discovery
  builtin.py     built-in kinds         crd.py       CRDs and custom resources
  tables.py      kubectl tables         openapi.py   minimal OpenAPI documents
  faults.py      fault injection        server.py    HTTP routing and admin endpoints
  managed.py     metadata.managedFields protobuf.py  protobuf request bodies
  authn.py       ServiceAccount tokens, TokenReview
  main.py        command line, TLS, kubeconfig
"""
