/* wh_config: the controller's admissionregistration.k8s.io/v1 webhook configurations (the
 * objects config/webhook ships), and the injection of the CA bundle into them as upstream's
 * certificate rotator does (open-policy-agent/cert-controller, WebhookInfo): every webhook of
 * the named configurations gets clientConfig.caBundle; with a URL base (a controller running
 * outside the cluster, as controller-runtime users register in development) clientConfig is
 * {url: <base><path>, caBundle} instead of the Service reference. */
#ifndef JX_KUBE_WEBHOOK_WH_CONFIG_H
#define JX_KUBE_WEBHOOK_WH_CONFIG_H

#include <jansson.h>
#include <stdbool.h>

/* A new MutatingWebhookConfiguration (`mutating`) or ValidatingWebhookConfiguration named
 * `name`: upstream JobSet's webhooks (mjobset.kb.io and mpod.kb.io; vjobset.kb.io), failure
 * policy Fail, side effects None, served by Service svc_ns/svc_name on port 443, or by
 * `url_base` when not NULL.  NULL on OOM. */
json_t *wh_config_new(bool mutating, const char *name, const char *svc_ns, const char *svc_name,
                     const char *url_base);

/* Sets every webhook's caBundle to `ca_b64` (and its url from `url_base` when not NULL: the
 * webhook's service path, or the path of the built-in webhook of the same name).  Returns 1
 * when `cfg` changed, 0 when it already said so, -ENOMEM. */
int wh_config_inject(json_t *cfg, const char *ca_b64, const char *url_base);

#endif
