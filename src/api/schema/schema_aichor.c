/* schema_aichor: the fields of an AIchor manifest that selects the jax operator.  AIchor
 * publishes no machine-readable schema; the table follows AIchor's documentation
 * (docs.aichor.ai, "Manifest Reference" and "Manifest File", apiVersion 0.2.3) for the fields
 * common to every operator and those of the jax operator's types (count, resources).  Fields
 * other operators read (completions, parallelisms, rayVersion, rayStartParams, Workers...) are
 * unknown here: jaxset refuses those operators anyway.  `metadata` is jaxset's addition
 * (conv_aichor.c reads metadata.name and metadata.namespace). */
#include "api/schema/schema.h"

#include <stddef.h>

#define N(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))
#define LEAF(name) {name, SCH_LEAF, NULL}

static const struct sch_field skip_build_f[] = {
    LEAF("enabled"), LEAF("experimentID"), LEAF("failIfNotFound"),
};
static const struct sch_type skip_build = {skip_build_f, N(skip_build_f), false};

static const struct sch_field builder_f[] = {
    LEAF("image"),    LEAF("dockerfile"), LEAF("context"), LEAF("buildArgs"),
    LEAF("registry"), LEAF("target"),     {"skipBuild", SCH_OBJ, &skip_build},
};
static const struct sch_type builder = {builder_f, N(builder_f), false};

static const struct sch_field clone_f[] = {
    LEAF("depth"), LEAF("includeDotGit"), LEAF("submodules"),
};
static const struct sch_type clone = {clone_f, N(clone_f), false};

static const struct sch_field gpu_f[] = {LEAF("count"), LEAF("type"), LEAF("product")};
static const struct sch_type gpu = {gpu_f, N(gpu_f), false};

static const struct sch_field accelerators_f[] = {{"gpu", SCH_OBJ, &gpu}};
static const struct sch_type accelerators = {accelerators_f, N(accelerators_f), false};

static const struct sch_field resources_f[] = {
    LEAF("cpus"),      LEAF("ramRatio"), LEAF("memory"), LEAF("cpuLimitRatio"),
    LEAF("shmSizeGB"), {"accelerators", SCH_OBJ, &accelerators},
};
static const struct sch_type resources = {resources_f, N(resources_f), false};

static const struct sch_field type_f[] = {LEAF("count"), {"resources", SCH_OBJ, &resources}};
static const struct sch_type type = {type_f, N(type_f), false};

static const struct sch_field tensorboard_f[] = {LEAF("enabled")};
static const struct sch_type tensorboard = {tensorboard_f, N(tensorboard_f), false};

static const struct sch_field shared_volume_f[] = {
    LEAF("mountPoint"), LEAF("sizeGB"), LEAF("storageClass"), LEAF("accessMode"),
};
static const struct sch_type shared_volume = {shared_volume_f, N(shared_volume_f), false};

static const struct sch_field pvc_f[] = {LEAF("name"), LEAF("mountPoint")};
static const struct sch_type pvc = {pvc_f, N(pvc_f), false};

static const struct sch_field storage_f[] = {
    {"sharedVolume", SCH_OBJ, &shared_volume},
    {"attachExistingPVCs", SCH_LIST, &pvc},
};
static const struct sch_type storage = {storage_f, N(storage_f), false};

static const struct sch_field spec_f[] = {
    LEAF("operator"),
    LEAF("image"),
    LEAF("command"),
    LEAF("activeDeadlineSeconds"),
    LEAF("timeout"),
    {"tensorboard", SCH_OBJ, &tensorboard},
    {"storage", SCH_OBJ, &storage},
    {"types", SCH_MAP, &type},
};
static const struct sch_type spec = {spec_f, N(spec_f), false};

static const struct sch_field root_f[] = {
    LEAF("kind"),
    LEAF("apiVersion"),
    LEAF("name"),
    {"metadata", SCH_OBJ, &sch_object_meta},
    {"builder", SCH_OBJ, &builder},
    {"clone", SCH_OBJ, &clone},
    {"spec", SCH_OBJ, &spec},
};
const struct sch_type sch_aichor = {root_f, N(root_f), false};
