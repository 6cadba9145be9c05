/* help: the one description of every command.  `jaxset CMD --help`, `jaxset help CMD`, the
 * command list of `jaxset help` and the usage line of every usage error all print from this
 * table, so the binary is the reference (README's command table summarises it). */
#include "cli/util/cli.h"

#include <string.h>

#define HELP_WIDTH 80
#define HELP_OPT_COL 26 /* where an option's text starts */

/* Each command's help, help_<command>: the table below takes them by the list of commands
 * (cli/util/commands.h), so that a command without its help does not build. */
static const struct cli_help help_validate = {
    .name = "validate",
    .summary = "check manifests fully; exit 2 with one line per field error",
    .usage = "jaxset validate FILE... [--cluster] [--errors=text|json]\n"
             "                       [--validate[=strict|warn|ignore]] [--strict-kinds]\n"
             "                       [--feature-gates A=BOOL,...] [--images]",
    .text = "Decodes, converts, defaults and validates every job in the files (JobSet, "
            "JAXJob, TrainJob with its training runtime, AIchor manifest; YAML or JSON, "
            "several documents per file), and reports what `jaxset run` would refuse on "
            "this machine (a container without command, env or volumes from ConfigMaps or "
            "Secrets not in the files, volumes one machine cannot give, too many pods) with "
            "run's own message. Prints one summary line per valid job.",
    .opts = {{"--cluster", "check only what a cluster checks (the API server and the "
                           "controllers), not what this machine's runner would refuse"},
             {"--errors=json", "each error line is followed by the same error as one line of "
                               "JSON on stderr: file, field, type, value, detail, message "
                               "(programs: the Python SDK; docs/cli.md)"},
             {"--validate[=MODE]", "unknown fields: strict (the default, also --validate or true) "
                                    "refuses them; warn prints them and drops them; ignore "
                                    "(or false) drops them silently, as kubectl"},
             {"--strict-kinds", "a document of another kind than jaxset runs (a "
                                "ConfigMap, a Service, a scheduler's Workload...) is "
                                "an error instead of skipped with a line"},
             CLI_FEATURE_GATES_HELP,
             {"--images", "what `jaxset run --images` would refuse: a container without "
                          "command is valid, its image gives it (also JAXSET_IMAGES=1)"}},
    .exit = "0 when every job is valid; 2 on invalid input or usage, with one line "
            "\"FILE: FIELD: ERROR\" per field error",
};

static const struct cli_help help_render = {
    .name = "render",
    .summary = "print what a cluster would receive: JobSet, Service, child Jobs",
    .usage = "jaxset render FILE... [-o yaml|json] [--validate[=strict|warn|ignore]]\n"
             "                  [--strict-kinds] [--feature-gates A=BOOL,...]",
    .text = "Prints the files' ConfigMaps and Secrets as written, then the defaulted JobSet, "
            "its headless Service, its PersistentVolumeClaims "
            "and every child batch/v1 Job exactly as the JobSet controller builds them for "
            "restart attempt 0, with the JAX environment in each Job's pod template.",
    .opts = {{"-o, --output FORMAT", "yaml (the default): one document per object; json: "
                                     "one v1 List"},
             {"--validate[=MODE]", "unknown fields: strict (the default, also --validate or true) "
                                    "refuses them; warn prints them and drops them; ignore "
                                    "(or false) drops them silently, as kubectl"},
             {"--strict-kinds", "a document of another kind than jaxset runs (a "
                                "ConfigMap, a Service, a scheduler's Workload...) is "
                                "an error instead of skipped with a line"},
             CLI_FEATURE_GATES_HELP},
    .exit = "0; 2 on invalid input or usage",
};

static const struct cli_help help_run = {
    .name = "run",
    .summary = "run a job on this machine with cluster semantics",
    .usage = "jaxset run FILE... [--run-dir DIR] [-q|--quiet] [--filter RJ|POD] "
             "[--grace SECONDS]\n"
             "                  [--restart-grace SECONDS] [--gpus N] "
             "[--restart-backoff MS] [--no-color]\n"
             "                  [--validate[=strict|warn|ignore]]\n"
             "                  [--strict-kinds] [--feature-gates A=BOOL,...]\n"
             "                  [--volumes=mount|skip] [--pvc CLAIM=PATH]... [--errors=json]\n"
             "                  [--images]",
    .text = "Validates fully (nothing starts if anything is invalid), then runs the job "
            "here as the JobSet controller, the Job controller and the kubelet would: every "
            "container a supervised process group with the pod's hostname, environment and "
            "JAX variables. Streams every pod's output prefixed [<pod hostname>], shows a "
            "live status line on a terminal and prints a summary that names the first "
            "failed pod. The run is kept in a run directory (see `jaxset get`). A pod's "
            "volumes (emptyDir, configMap, secret, hostPath, persistentVolumeClaim, "
            "downwardAPI, projected) are at their mountPath in a mount namespace of the "
            "pod, made without root where the kernel allows user namespaces "
            "(docs/volumes.md).",
    .opts = {{"--run-dir DIR", "keep this run in DIR instead of runs/<name>/<UTC time>-<pid> "
                               "in jaxset's state home ($JAXSET_HOME, else "
                               "$XDG_STATE_HOME/jaxset, else ~/.local/state/jaxset)"},
             {"-q, --quiet", "do not forward pod output (the log files still get it)"},
             {"--filter RJ|POD", "forward only one replicated job's pods, or pods whose "
                                 "hostname starts with POD"},
             {"--grace SECONDS", "termination grace period instead of the pods' "
                                 "terminationGracePeriodSeconds (default 30)"},
             {"--restart-grace SECONDS",
              "grace period of pods torn down by a gang restart, instead of the JobSet's "
              "jaxset.dev/restart-grace-seconds annotation or the pods' own"},
             {"--gpus N", "GPUs on this machine (default: the /dev/nvidiaN devices)"},
             {"--restart-backoff MS", "base of the crash-loop backoffs of in-place and "
                                      "gang restarts (default 100)"},
             {"--no-color", "plain output prefixes even on a terminal"},
             {"--validate[=MODE]", "unknown fields: strict (the default, also --validate or true) "
                                    "refuses them; warn prints them and drops them; ignore "
                                    "(or false) drops them silently, as kubectl"},
             {"--strict-kinds", "a document of another kind than jaxset runs (a "
                                "ConfigMap, a Service, a scheduler's Workload...) is "
                                "an error instead of skipped with a line"},
             CLI_FEATURE_GATES_HELP,
             {"--volumes=MODE", "mount (the default): each volume at its mountPath, in "
                                "the pod's mount namespace; where this machine refuses "
                                "namespaces, run says so before starting anything; skip: "
                                "no volume is mounted, the processes see this machine's "
                                "files (one warning per volumeMount)"},
             {"--pvc CLAIM=PATH", "the persistentVolumeClaim CLAIM is the directory PATH "
                                  "(default: <run dir>/volumes/CLAIM); repeatable"},
             {"--images", "every container runs in its image's root filesystem, with "
                          "the image's entrypoint, cmd, env, workingDir and user applied "
                          "as the kubelet applies them; images from the local "
                          "containers store (podman), pulled by imagePullPolicy; needs "
                          "root and podman (also JAXSET_IMAGES=1; docs/local.md)"},
             {"--errors=json", "for programs (the Python SDK): before the first pod "
                               "starts, one line of JSON on stderr names the run directory "
                               "({\"kind\":\"Run\",\"name\":...,\"runDir\":...}); "
                               "invalid input's errors come from `jaxset validate "
                               "--errors=json`"}},
    .exit = "0 Completed, 1 Failed, 2 invalid input or usage, 129/130/143 after "
            "SIGHUP/SIGINT/SIGTERM (once every worker is gone)",
};

static const struct cli_help help_submit = {
    .name = "submit",
    .summary = "validate jobs, then create them on a cluster",
    .usage = "jaxset submit FILE... [--dry-run=client|server] [--wait [--timeout D]]\n"
             "                  [-n NS] [--context NAME] [--kubeconfig FILE] "
             "[--request-timeout D]\n"
             "                  [--validate[=strict|warn|ignore]] [--strict-kinds] "
             "[--feature-gates A=BOOL,...]",
    .text = "Validates the files as `jaxset validate` does (nothing is sent when anything "
            "is invalid), then creates their objects in the namespace (the object's own, "
            "else -n, else the context's, else default): first the ConfigMaps, Secrets and "
            "training runtimes, then every job. JobSets, JAXJobs and TrainJobs are "
            "created as themselves (their controllers run them); an AIchor manifest "
            "becomes the JobSet `jaxset render` shows. Prints \"<kind>/<name> created\" "
            "per object. Every object is first sent with dryRun=All: when the server refuses "
            "one (its field errors are printed as validate prints local ones, \"FILE: "
            "FIELD: ERROR\"; a name taken; no such namespace), nothing is created.",
    .opts = {{"--dry-run=MODE", "client: print what would be sent, send nothing; server: "
                                "send with dryRun=All (the server validates, stores "
                                "nothing)"},
             {"--wait", "then wait until every job is Completed (as `jaxset wait`)"},
             {"--timeout D", "with --wait: give up after D (exit 124)"},
             CLUSTER_HELP,
             {"--validate[=MODE]", "unknown fields: strict (the default, also --validate or true) "
                                    "refuses them; warn prints them and drops them; ignore "
                                    "(or false) drops them silently, as kubectl"},
             {"--strict-kinds", "a document of another kind than jaxset runs is an error "
                                "instead of skipped with a line"},
             CLI_FEATURE_GATES_HELP},
    .exit = "0 when everything was created (with --wait: and every job Completed); 1 with "
            "--wait when a job failed; 2 on invalid input or usage, when the server refused "
            "a field (one line \"FILE: FIELD: ERROR\" each) or an object already exists; "
            "3 when the cluster cannot be reached or refuses the request; 124 when --wait's "
            "--timeout passed",
};

static const struct cli_help help_get = {
    .name = "get",
    .summary = "list jobs (a cluster's, or the runs of this machine) or show some",
    .usage = "jaxset get [[KIND/]NAME... | KIND --all | KIND -l SEL] [-A] "
             "[-o wide|json|yaml|name|jsonpath=T] [-w]\n"
             "                  [--all-runs] [-n NS] [--context NAME] [--kubeconfig FILE] "
             "[--request-timeout D] [--local]",
    .text = "The same command line in both places: on a cluster (a kubeconfig, --context, "
            "-n or in-cluster; not --local) and on the runs this machine keeps (--local, or "
            "no cluster configured). NAME is a JobSet, KIND/NAME a jobset, jaxjob or "
            "trainjob (locally the run of that name; a JAXJob's run also has its JAXJob "
            "with the status its controller would write); without NAME, every job of KIND "
            "(jobset by default). "
            "The table on a cluster has one line per job, as kubectl aligns them: NAME, "
            "STATE (Pending, Created, Running, Restarting, Suspended, Completed, Failed, "
            "Terminating), RESTARTS, READY and SUCCEEDED (child Jobs of every replicated "
            "job over their replicas), ACTIVE, FAILED and AGE. Locally it has one line "
            "per run, the latest of each name, newest first: NAME, STATE (Starting, "
            "Running, Suspended, Restarting, Completed, Failed, Interrupted, or Lost when "
            "the run's process is gone), TERMINALSTATE, RESTARTS, AGE (since the start), "
            "DURATION (until the end, or until now) and PROGRESS (the percentage the "
            "training last reported to Trainer's status endpoint, `jaxset statusserver`; - "
            "when none); --all-runs lists every run kept, with "
            "its RUN id. "
            "-o json or yaml prints the object itself for one NAME, else a v1 List of "
            "them, as kubectl: locally a run's JobSet with its status, annotated with the "
            "run's state, directory and id (jaxset.dev/run-state, jaxset.dev/run-dir, "
            "jaxset.dev/run-id). Other kinds are read with -o json, yaml, name or jsonpath, "
            "as kubectl does: pods, jobs (locally those of the runs kept: each Pod with its "
            "labels, JAX process id annotation, its Job's pod spec, phase, times and each "
            "container's state, exit code and signal; pods left running by a Lost run are "
            "Failed), events (locally each run's events.log, as Events of its JobSet) "
            "and, on a cluster, configmaps, secrets, trainingruntimes and "
            "clustertrainingruntimes (`get pod/NAME -o json`, `get pods -l "
            "jobset.sigs.k8s.io/jobset-name=NAME -o json`). "
            "Local runs are kept under $JAXSET_HOME/runs (docs/local.md): `jaxset run` "
            "keeps the last JAXSET_KEEP_RUNS runs of each name (10 by default).",
    .opts = {{"-o, --output FORMAT", "wide: more columns (on a cluster each replicated "
                                     "job's name:ready/active/succeeded/failed; locally "
                                     "PODS, EXIT and RUN DIRECTORY); json or yaml: the "
                                     "object, a v1 List for several or none; name: "
                                     "kind.group/name (jobset.jobset.x-k8s.io/NAME, "
                                     "pod/NAME); jsonpath=TEMPLATE: kubectl's common "
                                     "subset ({.metadata.name}, {.items[*].metadata.name}, "
                                     "{range .items[*]}...{end}, {\"\\n\"})"},
             {"-w, --watch", "after the list, one more line (object) per change, until "
                             "interrupted (locally: until no run watched is going; the "
                             "run directory is read again ten times a second)"},
             {"--all", "every job of KIND (the default without NAME)"},
             {"--all-runs", "locally: every run kept, not only the latest of each name"},
             {"-l, --selector SEL", "only the objects of the list (and watch) with these "
                                    "labels, as kubectl's -l (locally: key=value, "
                                    "key!=value, key, !key)"},
             {"-A, --all-namespaces", "cluster: every job of KIND in every namespace, with "
                                      "a NAMESPACE column (locally every run is listed "
                                      "anyway)"},
             CLUSTER_HELP, CLUSTER_LOCAL_HELP},
    .exit = "0; 2 when a job or run named is not there (the others are printed), or on "
            "usage (an unknown kind); 3 when the cluster cannot be reached or refuses the "
            "request",
};

static const struct cli_help help_describe = {
    .name = "describe",
    .summary = "show what happened to a job: conditions, Jobs, pods, events",
    .usage = "jaxset describe [KIND/]NAME... [-n NS] [--context NAME] [--kubeconfig FILE]\n"
             "                  [--request-timeout D] [--local]",
    .text = "Each job NAME (KIND jobset, the default; jaxjob, trainjob) as `kubectl "
            "describe` shows an object. On a cluster: state, restarts, terminal state and "
            "JAX coordinator; its conditions; replicated jobs; restart history (the restart "
            "attempts its Jobs carry, Jobs recreated by RestartJob); child Jobs; pods with "
            "their JAX process id (the pod's JAX_PROCESS_ID, else numbered as `jaxset run` "
            "numbers processes); the events of the job, its Jobs and pods (core/v1 and "
            "events.k8s.io/v1). Locally: the latest run of NAME: source, run "
            "directory, state, start, duration, restarts and terminal state; the JobSet's "
            "conditions and replicated jobs; its child Jobs; every pod grouped by restart "
            "attempt, oldest first, with hostname, JAX process id, phase, restarts, the exit "
            "code or signal of each failed container, start and finish; the first failed "
            "pod of each attempt; and the events.",
    .opts = {CLUSTER_HELP, CLUSTER_LOCAL_HELP},
    .exit = "0; 2 when there is no such job or run, or on usage; 3 when the cluster cannot "
            "be reached or refuses the request",
};

static const struct cli_help help_logs = {
    .name = "logs",
    .summary = "print the logs of a job's pods (a cluster's, or a local run's)",
    .usage = "jaxset logs [KIND/]NAME [POD] [--process-id N | --pod P | --replicated-job R] "
             "[-c C]\n"
             "                  [--attempt N | -p] [--since D] [--tail N] [--prefix] [-f] "
             "[-n NS] [--context NAME]\n"
             "                  [--kubeconfig FILE] [--request-timeout D] [--local]",
    .text = "The logs of the pods of the job NAME (KIND jobset, the default; jaxjob, "
            "trainjob), the same options in both places: on a cluster through the API "
            "server (pods/log), locally from the latest run of NAME. Every pod in JAX "
            "process order (locally in the run's order), or those the options select; "
            "lines are prefixed [<pod hostname>] ([<hostname>/<container>] for pods of "
            "several containers) unless one log of a selection alone is printed, and "
            "grouped under \"--- restart attempt N ---\" lines when pods of several "
            "restart attempts are printed.",
    .opts = {{"-f, --follow", "then print new lines as they come, pods created by "
                              "restarts included, until the job (run) ends"},
             {"--process-id N", "the pod of JAX process N"},
             {"--pod P", "the pod named P, or of hostname P (locally also a prefix of "
                         "either; with -f on a cluster and a pod name: until that pod's "
                         "log ends, as kubectl logs -f pod/P); POD, after NAME, is the "
                         "same"},
             {"--replicated-job R", "the pods of replicated job R"},
             {"-c, --container C", "only container C of each pod"},
             {"--attempt N", "only the pods of restart attempt N"},
             {"-p, --previous", "locally: each pod's restart attempt before its last (the "
                                "log of the pod a gang restart replaced); on a cluster the "
                                "previous instance of the container, as kubectl"},
             {"--since D", "only lines newer than D (10s, 5m, 1h); locally, where a log "
                           "keeps no time per line, the logs written to since then, whole"},
             {"--tail N", "only the last N lines of each log (then, with -f, new lines)"},
             {"--prefix", "prefix lines even when one log is printed"},
             CLUSTER_HELP, CLUSTER_LOCAL_HELP},
    .exit = "0; 2 when there is no such job or run, nothing matches, or on usage; 3 when "
            "the cluster cannot be reached or refuses the request",
};

static const struct cli_help help_wait = {
    .name = "wait",
    .summary = "wait until a job is Completed, Failed or has a condition",
    .usage = "jaxset wait [KIND/]NAME... [--for=Completed|Failed|condition=TYPE[=STATUS]] "
             "[--timeout D]\n"
             "                  [-n NS] [--context NAME] [--kubeconfig FILE] "
             "[--request-timeout D] [--local]",
    .text = "Waits until each job NAME (KIND jobset, the default; jaxjob, trainjob) reaches "
            "the state or condition --for names (Completed by default), as `kubectl wait`: "
            "on a cluster it reads the job, then follows a watch; locally, the latest run "
            "of NAME until it ends (its state as `get` shows it). Unlike kubectl it also ends "
            "as soon as the job reached "
            "the other terminal state (a Failed job will never be Completed). Prints "
            "\"<kind>/<name> condition met\".",
    .opts = {{"--for=WHAT", "Completed (the default), Failed, or condition=TYPE[=STATUS] "
                            "(STATUS True by default): a condition of status.conditions"},
             {"--timeout D", "give up after D (30s, 10m, 1h, or seconds; default 0: no "
                             "limit)"},
             CLUSTER_HELP, CLUSTER_LOCAL_HELP},
    .exit = "0 when met; 1 when the job reached the other terminal state (or was deleted, or "
            "a local run was interrupted or lost); 124 when --timeout passed; 2 when there "
            "is no such job or run, or on usage; 3 when the cluster cannot be reached or "
            "refuses the request",
};

static const struct cli_help help_delete = {
    .name = "delete",
    .summary = "delete jobs from a cluster, or the runs of names from this machine",
    .usage = "jaxset delete [KIND/]NAME... | [KIND] --all [--cascade=background|foreground|"
             "orphan] [--force]\n"
             "                  [-n NS] [--context NAME] [--kubeconfig FILE] "
             "[--request-timeout D] [--local]",
    .text = "On a cluster: deletes each job NAME (KIND jobset, the default; jaxjob, "
            "trainjob), or with --all every job of KIND in the namespace, as `kubectl "
            "delete` does; --cascade chooses what happens to its child Jobs and pods. "
            "Locally: removes every kept run of each NAME (their run directories), or with "
            "--all of every name; a run still going is refused unless --force, which stops "
            "it first as SIGTERM stops `jaxset run` (every pod the kubelet's way).",
    .opts = {{"--cascade=POLICY", "background (the default): the object goes now, its "
                                  "children after; foreground: the children first; orphan: "
                                  "the children stay"},
             {"--all", "every job of KIND (jobset by default); locally every run kept"},
             {"--force", "locally: stop a running run, then delete it"},
             CLUSTER_HELP, CLUSTER_LOCAL_HELP},
    .exit = "0 deleted; 1 when --force could not stop the run; 2 when there is no such job "
            "or run, a run is going without --force, or on usage; 3 when the cluster "
            "cannot be reached or refuses the request",
};

static const struct cli_help help_config = {
    .name = "config",
    .summary = "show the cluster configuration the other verbs use",
    .usage = "jaxset config view [--minify] [-o json|yaml] [-n NS] [--context NAME] "
             "[--kubeconfig FILE]",
    .text = "Prints the configuration `get`, `submit`, `wait`, `logs` and `delete` would "
            "use (the kubeconfig files, --context and -n, or the in-cluster service "
            "account) as `kubectl config view --minify` does: a v1 Config with the one "
            "context (its namespace the one in effect), its cluster's server and no "
            "credential. Nothing is sent to the server.",
    .opts = {{"--minify", "accepted for kubectl's sake: this is the only view"},
             {"-o, --output FORMAT", "yaml (the default) or json"},
             CLUSTER_HELP},
    .exit = "0; 2 on usage; 3 when the configuration cannot be used (the message names the "
            "file and the entry)",
};

static const struct cli_help help_suspend = {
    .name = "suspend",
    .summary = "suspend a running local run (spec.suspend: true)",
    .usage = "jaxset suspend NAME",
    .text = "Sets spec.suspend of the running run of NAME, as `kubectl patch` would on a "
            "cluster: every pod is stopped the kubelet's way, the Jobs stay, the JobSet gets "
            "Suspended=True. Waits until the run has taken the change.",
    .exit = "0; 1 when the run did not take it within 10 s; 2 when no run of NAME is going",
};

static const struct cli_help help_resume = {
    .name = "resume",
    .summary = "resume a suspended local run",
    .usage = "jaxset resume NAME",
    .text = "Clears spec.suspend of the running run of NAME (suspended by `jaxset suspend` "
            "or from its manifest): the pods start again. Waits until the run has taken "
            "the change.",
    .exit = "0; 1 when the run did not take it within 10 s; 2 when no run of NAME is going",
};

static const struct cli_help help_decode = {
    .name = "decode",
    .summary = "print the documents of manifest files as one JSON array",
    .usage = "jaxset decode FILE...",
    .text = "Decodes every document of the files with kubectl's YAML rules (YAML 1.1 "
            "scalars, anchors and merges, JSON too) and prints them as one JSON array, "
            "nothing defaulted or checked: for programs without a YAML library (the Python "
            "SDK reads training runtimes with it).",
    .exit = "0; 2 when a file cannot be read or decoded, or on usage",
};

static const struct cli_help help_controller = {
    .name = "controller",
    .summary = "run the JobSet, JAXJob and TrainJob controllers against a Kubernetes "
               "cluster",
    .usage = "jaxset controller [--kubeconfig FILE] [--context NAME] [--in-cluster] "
             "[--controllers LIST] "
             "[--kube-api-qps N] [--kube-api-burst N] [--max-parallel-writes N] "
             "[--max-concurrent-reconciles N] [--leader-elect] "
             "[--leader-election-namespace NS] [--leader-election-id ID] "
             "[--leader-elect-lease-duration D] [--leader-elect-renew-deadline D] "
             "[--leader-elect-retry-period D] [--identity ID] "
             "[--metrics-bind-address ADDR] [--health-probe-bind-address ADDR] "
             "[--log-level|--zap-log-level error|info|debug] [--log-format|--zap-encoder "
             "text|json] [--enable-webhooks [--webhook-port N] [--webhook-host H] "
             "[--webhook-url-base URL] [--webhook-cert-dir DIR] [--webhook-secret-name N] "
             "[--webhook-secret-namespace NS] [--webhook-service-name N] "
             "[--webhook-service-namespace NS] [--webhook-mutating-configuration N] "
             "[--webhook-validating-configuration N] [--webhook-cert-validity D] "
             "[--status-server-port N]] [--exclusive-placement gates|webhook]",
    .opts = {{"--kubeconfig FILE", "only this kubeconfig file (else KUBECONFIG, "
                                   "~/.kube/config, then the in-cluster service account)"},
             {"--context NAME", "this context of the kubeconfig"},
             {"--in-cluster", "only the in-cluster service account"},
             {"--controllers LIST", "comma list of jobset, jaxjob, trainjob (all three); "
                                    "one whose CRD is not installed is skipped"},
             {"--kube-api-qps N, --kube-api-burst N", "client-side rate limit (500, 500)"},
             {"--max-parallel-writes N", "creates/deletes in flight for one JobSet (50)"},
             {"--max-concurrent-reconciles N",
              "JobSets reconciled at once, each key by one pass at a time (16)"},
             {"--leader-elect[=false]", "run only while holding the Lease "
                                        "6d4f6a47.x-k8s.io (upstream's id)"},
             {"--leader-election-namespace NS, --leader-election-id ID",
              "where the Lease is (the configuration's namespace)"},
             {"--leader-elect-lease-duration D, --leader-elect-renew-deadline D, "
              "--leader-elect-retry-period D", "Go durations (15s, 10s, 2s)"},
             {"--identity ID", "the Lease holder's name (hostname_random)"},
             {"--metrics-bind-address ADDR", "Prometheus /metrics (:8080; 0 disables)"},
             {"--health-probe-bind-address ADDR", "/healthz and /readyz (:8081; 0 disables)"},
             {"--log-level L, --zap-log-level L", "error, info (default) or debug"},
             {"--log-format F, --zap-encoder F", "text (console) or json"},
             CLI_FEATURE_GATES_HELP,
             {"--enable-webhooks[=false]",
              "serve the admission webhooks over HTTPS: JobSet defaults and validation, "
              "pods' JAX process ids and exclusive placement (off by default)"},
             {"--webhook-port N, --webhook-host H",
              "where they listen (9443, every interface)"},
             {"--webhook-url-base URL",
              "outside the cluster: register the webhooks by url (URL + path, e.g. "
              "https://127.0.0.1:9443), creating the configurations when absent"},
             {"--webhook-cert-dir DIR",
              "also write ca.crt, tls.crt and tls.key there (else memory only)"},
             {"--webhook-secret-name N, --webhook-secret-namespace NS",
              "the certificates' Secret (jaxset-webhook-server-cert, the configuration's "
              "namespace)"},
             {"--webhook-service-name N, --webhook-service-namespace NS",
              "the Service the certificate names (jaxset-webhook-service, the Secret's)"},
             {"--webhook-mutating-configuration N, --webhook-validating-configuration N",
              "the configurations given the CA bundle (jaxset-mutating-webhook-"
              "configuration, jaxset-validating-webhook-configuration)"},
             {"--webhook-cert-validity D",
              "lifetime of a new CA and certificate (87600h); new ones are made when a "
              "quarter of it, at most 90 days, is left"},
             {"--status-server-port N",
              "with --feature-gates=TrainJobStatus=true: where Kubeflow Trainer's status "
              "server listens for the trainer pods' progress reports (10443, Trainer's)"},
             {"--exclusive-placement ORDER",
              "with --enable-webhooks, how followers of exclusive placement wait for their "
              "leader: gates (admitted behind a scheduling gate, given the leader's domain once "
              "it is scheduled) or webhook (refused until then and retried by the Job "
              "controller, as upstream)"}},
    .text = "A drop-in for upstream's JobSet controller (jobset.x-k8s.io/v1alpha2): watches "
            "JobSets and the Jobs and Services they own, and creates, deletes and updates "
            "them and the JobSets' status exactly as upstream does, with the same labels, "
            "events and conditions. The configuration is found as kubectl finds it "
            "(--kubeconfig, KUBECONFIG, ~/.kube/config, then the in-cluster service "
            "account). The flags keep upstream's and controller-runtime's names and "
            "defaults (QPS and burst 500, lease 15s/10s/2s, metrics :8080, probes :8081). "
            "The JobSet annotation jaxset.dev/restart-grace-seconds=N gives the pods of a "
            "gang torn down by a failure-policy restart N seconds of grace instead of their "
            "own. With --feature-gates=InPlaceRestart=true the JobSets that use it have "
            "their pods read on every pass (upstream's agent restarts the containers). "
            "The same process runs Kubeflow's JAXJobs (kubeflow.org/v1, each as a JobSet "
            "of its name, status with the Training Operator's conditions and runPolicy) and "
            "TrainJobs (trainer.kubeflow.org/v1alpha1 with a JAX TrainingRuntime or "
            "ClusterTrainingRuntime, status as Trainer v2 sets it); --controllers=jobset "
            "leaves those kinds to upstream's operators running alongside. "
            "With --enable-webhooks it also serves upstream's admission webhooks on the same "
            "thread and manages their certificates itself: a CA and a serving certificate "
            "kept in a Secret, its CA bundle written into the webhook configurations, "
            "replaced before expiry (docs/webhooks.md). With "
            "--feature-gates=TrainJobStatus=true it is Kubeflow Trainer's status server too: "
            "trainer pods get the KUBEFLOW_TRAINER_SERVER_* variables and a projected token of "
            "their TrainJob's audience, and their progress reports (checked by TokenReview) "
            "are written into the TrainJob's status.trainerStatus (docs/cluster.md). "
            "Exclusive placement per topology domain (the JobSet or replicated job "
            "annotation alpha.jobset.sigs.k8s.io/exclusive-topology) needs --enable-webhooks "
            "with the pod webhooks mpod.kb.io and vpod.kb.io registered, and RBAC to "
            "get/list/watch nodes and pods and to delete pods and update pods/status "
            "(config/rbac): the controller caches pods of JobSets and Nodes whenever the "
            "JobSet controller or the webhooks run, and deletes the followers placed off "
            "their leader's domain. "
            "Stops on SIGTERM or SIGINT.",
    .exit = "0 after SIGTERM/SIGINT; 1 when it cannot start (no configuration); 2 on usage",
};

static const struct cli_help help_statusserver = {
    .name = "statusserver",
    .summary = "serve Kubeflow Trainer's status endpoint for a local run (jaxset run starts it)",
    .usage = "jaxset statusserver --dir DIR --namespace NS --name NAME",
    .text = "Serves the endpoint trainer pods POST their progress and metrics to (Kubeflow "
            "Trainer's status server, TrainJobStatus) for TrainJob NS/NAME of one local run: "
            "HTTPS on a free port of 127.0.0.1, with a CA and certificate made for it and a "
            "random token, written to DIR/ca.crt and DIR/token (what the pods' "
            "KUBEFLOW_TRAINER_SERVER_CA_CERT and KUBEFLOW_TRAINER_SERVER_TOKEN name). Prints "
            "one JSON line {\"url\": ...} once it listens, then {\"trainerStatus\": ...} for "
            "every report it accepts, and ends when its standard input does. `jaxset run` "
            "starts it for every TrainJob (and for a JobSet or JAXJob annotated "
            "jaxset.dev/trainer-status: \"true\") and keeps what it prints in the TrainJob's "
            "status.trainerStatus; there is no need to run it by hand.",
    .opts = {{"--dir DIR", "where ca.crt and token are written (made if missing)"},
             {"--namespace NS", "the TrainJob's namespace"},
             {"--name NAME", "the TrainJob's name"}},
    .exit = "0 when its standard input ends; 1 when it cannot serve; 2 on usage",
};

static const struct cli_help help_crds = {
    .name = "crds",
    .summary = "print the controller's CustomResourceDefinitions, or its runtimes",
    .usage = "jaxset crds [--runtimes] [-o yaml|json]",
    .text = "Prints the CustomResourceDefinitions of jaxset's controller (JobSet "
            "jobset.x-k8s.io/v1alpha2, JAXJob kubeflow.org/v1, TrainJob, TrainingRuntime and "
            "ClusterTrainingRuntime trainer.kubeflow.org/v1alpha1), as one multi-document "
            "YAML stream: the files of "
            "config/crd byte for byte, built into the binary. For example "
            "`jaxset crds | kubectl apply --server-side -f -`, or `kubectl apply "
            "--server-side -k config/default` for the controller too (the CRDs embed the "
            "Kubernetes schemas of their templates and exceed the annotation client-side "
            "apply writes). With --runtimes, the training runtimes jaxset ships instead, the "
            "files of config/runtimes alike: the ClusterTrainingRuntime jax-distributed "
            "(Kubeflow Trainer's JAX runtime), which the Python SDK's local backend offers as "
            "its built-in runtime (`jaxset crds --runtimes -o json`).",
    .opts = {{"--runtimes", "the training runtimes (config/runtimes) instead of the CRDs"},
             {"-o, --output FORMAT", "yaml (the default): the files as they are; json: their "
                                     "documents as one JSON array, as `jaxset decode` prints "
                                     "them (for programs without a YAML library)"}},
    .exit = "0; 1 when the output cannot be written; 2 on usage",
};

static const struct cli_help help_completion = {
    .name = "completion",
    .summary = "print a shell completion script (bash or zsh)",
    .usage = "jaxset completion bash|zsh",
    .text = "Prints a script that completes jaxset's commands and each command's options "
            "(those this help lists), for `jaxset` and `kubectl-jaxset`. bash: "
            "`source <(jaxset completion bash)`, or save it in "
            "/etc/bash_completion.d/jaxset; zsh: `source <(jaxset completion zsh)`, or "
            "save it as _jaxset in a folder of $fpath.",
    .exit = "0; 2 on usage (another shell)",
};

static const struct cli_help help_help = {
    .name = "help",
    .summary = "list the commands, or describe one",
    .usage = "jaxset help [COMMAND]",
    .text = "Without COMMAND, lists the commands; with it, prints what `jaxset COMMAND "
            "--help` prints.",
    .exit = "0; 2 for an unknown command",
};

static const struct cli_help help_version = {
    .name = "version",
    .summary = "print the version",
    .usage = "jaxset version",
    .text = "Prints jaxset's version.",
    .exit = "0",
};

/* Every command's help, in the list's order, then help's and version's. */
static const struct cli_help *const helps[] = {
#define X(name, fn, where) &help_##name,
    CLI_COMMANDS(X)
#undef X
    &help_help,
    &help_version,
};

#define N_HELPS (sizeof(helps) / sizeof(helps[0]))

const struct cli_help *const *cli_help_table(size_t *n)
{
    *n = N_HELPS;
    return helps;
}

const struct cli_help *cli_help_find(const char *cmd)
{
    for (size_t i = 0; cmd && i < N_HELPS; i++)
        if (!strcmp(helps[i]->name, cmd))
            return helps[i];
    return NULL;
}

const char *cli_usage_of(const char *cmd)
{
    const struct cli_help *h = cli_help_find(cmd);
    return h ? h->usage : "jaxset COMMAND [ARGS...]";
}

/* Prints `s` word-wrapped to HELP_WIDTH columns, the first line from column `col` (the cursor
 * is there), the others indented to `indent`. */
static void wrap(FILE *out, const char *s, int col, int indent)
{
    while (*s) {
        size_t word = strcspn(s, " ");
        if (col > indent && col + 1 + (int)word > HELP_WIDTH) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', out);
            col++;
        }
        fwrite(s, 1, word, out);
        col += (int)word;
        s += word;
        s += strspn(s, " ");
    }
    fputc('\n', out);
}

void cli_help_print(FILE *out, const struct cli_help *h)
{
    fprintf(out, "usage: %s\n\n", h->usage);
    wrap(out, h->text, 0, 0);
    fprintf(out, "\nOptions:\n");
    for (size_t i = 0; i < CLI_HELP_MAX_OPTS && h->opts[i].flags; i++) {
        int col = fprintf(out, "  %s", h->opts[i].flags);
        if (col + 2 > HELP_OPT_COL) {
            fprintf(out, "\n%*s", HELP_OPT_COL, "");
        } else {
            fprintf(out, "%*s", HELP_OPT_COL - col, "");
        }
        wrap(out, h->opts[i].text, HELP_OPT_COL, HELP_OPT_COL);
    }
    fprintf(out, "  %-*s%s\n", HELP_OPT_COL - 2, "-h, --help", "print this help");
    fprintf(out, "\nExit status:");
    wrap(out, h->exit, 12, 2);
}

void cli_help_list(FILE *out)
{
    fprintf(out, "usage: jaxset COMMAND [ARGS...]\n\nCommands:\n");
    for (size_t i = 0; i < N_HELPS; i++)
        fprintf(out, "  %-10s %s\n", helps[i]->name, helps[i]->summary);
    fprintf(out, "\n`jaxset COMMAND --help` or `jaxset help COMMAND` describes a command and "
                 "its options.\n"
                 "Manifests: jobset.x-k8s.io/v1alpha2 JobSet, kubeflow.org/v1 JAXJob,\n"
                 "trainer.kubeflow.org/v1alpha1 TrainJob (+ TrainingRuntime or\n"
                 "ClusterTrainingRuntime), AIchorManifest (spec.operator: jax).\n");
}
