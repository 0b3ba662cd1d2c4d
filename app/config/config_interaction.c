// config_interaction.c — particles.interaction: each interaction type's key table (bsInteractionKeysOf: a new
// interaction is its table and one row) and the reader of its name or object, with a material's preset.
#include "config_read.h"

#include "config_fluid.h"

#include <stdio.h>

// particles.interaction: a type name, or an object with a type and that type's keys (bsCheckKeysOf),
// read straight into the config's bsStepDef.interaction (filled by bsDefaultStepDef() first).
static const bsRange bsOpenUnit = {0.0, 1.0, true, "a number > 0 and <= 1"};

static const bsRange bsRangeFactor = {1.0, 1000.0, false, "a number from 1 to 1000"};

static const bsRange bsTangentialDamping = {0.0, 10.0, false, "a number from 0 to 10"};

static const bsRange bsFlowIndex = {0.2, 2.0, false, "a number from 0.2 to 2"};

static const bsRange bsSkinRange = {0.0, 10.0, false, "a number from 0 to 10"};

static const bsRange bsPoisson = {0.0, 0.5, false, "a number from 0 to 0.5"};

#define BS_INTERACTION_KEY(K, M, R) BS_NUMBER_IN(K, bsInteractionDef, M, R)

#define BS_INTERACTION_DENSITY_KEYS BS_KEY("type", BS_VALUE), BS_INTERACTION_KEY("density", density, &bsPositive)

#define BS_INTERACTION_COMMON_KEYS BS_INTERACTION_DENSITY_KEYS, \
	BS_INTERACTION_KEY("cohesion", cohesion, &bsNonNegative), \
	BS_INTERACTION_KEY("cohesion_range", cohesionRange, &bsRangeFactor), \
	BS_INTERACTION_KEY("viscosity", viscosity, &bsNonNegative), \
	BS_INTERACTION_KEY("skin", skin, &bsSkinRange)

#define BS_REPULSION_KEYS BS_INTERACTION_KEY("strength", strength, &bsPositive), \
	BS_INTERACTION_KEY("range", range, &bsRangeFactor)

#define BS_GRANULAR_KEYS BS_INTERACTION_KEY("restitution", restitution, &bsOpenUnit), \
	BS_INTERACTION_KEY("contact_time", contactTime, &bsPositive), \
	BS_INTERACTION_KEY("stiffness", stiffness, &bsPositive), \
	BS_INTERACTION_KEY("friction", friction, &bsNonNegative), \
	BS_INTERACTION_KEY("tangential_damping", tangentialDamping, &bsTangentialDamping), \
	BS_INTERACTION_KEY("tangential_stiffness", tangentialStiffness, &bsUnit), \
	BS_KEY("contact_model", BS_VALUE), \
	BS_INTERACTION_KEY("youngs_modulus", youngsModulus, &bsPositive), \
	BS_INTERACTION_KEY("poisson_ratio", poissonRatio, &bsPoisson), \
	BS_KEY("rotation", BS_VALUE), \
	BS_INTERACTION_KEY("rolling_friction", rollingFriction, &bsNonNegative), \
	BS_INTERACTION_KEY("rolling_friction_fresh", rollingFresh, &bsNonNegative), \
	BS_INTERACTION_KEY("friction_fresh", frictionFresh, &bsNonNegative), \
	BS_KEY("rolling_model", BS_VALUE), \
	BS_KEY("spring_turn", BS_VALUE), \
	BS_INTERACTION_KEY("bond_strength", bondStrength, &bsNonNegative), \
	BS_INTERACTION_KEY("sintering_time", sinteringTime, &bsPositive), \
	BS_INTERACTION_KEY("wall_bond", wallBond, &bsNonNegative)

// The fluid's own keys (bsFluidDef): not the pair kinds' cohesion, cohesion_range and viscosity. Its
// checks across keys are bsCheckFluid's (config_fluid.c).
#define BS_FLUID_KEY(K, M, R) BS_INTERACTION_KEY(K, fluid.M, R)

#define BS_FLUID_INT(K, M) BS_INT_IN(K, bsInteractionDef, fluid.M, 1, 10000)

#define BS_FLUID_KEYS BS_FLUID_KEY("kinematic_viscosity", kinematicViscosity, &bsNonNegative), \
	BS_FLUID_KEY("wall_viscosity", wallViscosity, &bsNonNegative), \
	BS_FLUID_KEY("yield_stress", yieldStress, &bsNonNegative), \
	BS_FLUID_KEY("flow_index", flowIndex, &bsFlowIndex), \
	BS_FLUID_KEY("max_viscosity", maxViscosity, &bsNonNegative), \
	BS_FLUID_KEY("surface_tension", surfaceTension, &bsNonNegative), \
	BS_FLUID_KEY("adhesion", adhesion, &bsNonNegative), \
	BS_FLUID_KEY("density_error", densityError, &bsPositive), \
	BS_FLUID_KEY("density_error_max", densityErrorMax, &bsPositive), \
	BS_FLUID_KEY("divergence_error", divergenceError, &bsPositive), \
	BS_FLUID_INT("max_iterations", maxIterations), \
	BS_FLUID_KEY("viscosity_error", viscosityError, &bsPositive), \
	BS_FLUID_INT("max_viscosity_iterations", maxViscosityIterations), \
	BS_FLUID_KEY("cfl", cfl, &bsOpenUnit)

static const bsSchemaKey bsInteractionKeys[] = {BS_INTERACTION_COMMON_KEYS, BS_REPULSION_KEYS, BS_GRANULAR_KEYS,
	BS_FLUID_KEYS};

const bsSchema bsInteractionSchema = BS_OBJECT(bsInteractionKeys);

static const bsSchemaKey bsNoInteractionKeys[] = {BS_KEY("type", BS_VALUE)};

static const bsSchemaKey bsRepulsionKeys[] = {BS_INTERACTION_COMMON_KEYS, BS_REPULSION_KEYS};

static const bsSchemaKey bsGranularKeys[] = {BS_INTERACTION_COMMON_KEYS, BS_GRANULAR_KEYS};

static const bsSchemaKey bsFluidKeys[] = {BS_INTERACTION_DENSITY_KEYS, BS_FLUID_KEYS};

// The keys of each bsInteractionType, at its type (an error lists them); its name is the engine's
// (bsInteractionName). A new interaction is its key table and one line here.
typedef struct bsInteractionKeyTable
{
	const bsSchemaKey* keys;
	int count;
} bsInteractionKeyTable;

static const bsInteractionKeyTable bsInteractionKeysOf[] = {
	[bs_interactionNone] = {bsNoInteractionKeys, BS_COUNT(bsNoInteractionKeys)},
	[bs_interactionRepulsion] = {bsRepulsionKeys, BS_COUNT(bsRepulsionKeys)},
	[bs_interactionGranular] = {bsGranularKeys, BS_COUNT(bsGranularKeys)},
	[bs_interactionFluid] = {bsFluidKeys, BS_COUNT(bsFluidKeys)},
};

_Static_assert(BS_COUNT(bsInteractionKeysOf) == bs_interactionCount, "config keys for every interaction type");

// The engine's interaction names, at their types.
static void bsInteractionNames(const char* names[bs_interactionCount])
{
	for (int i = 0; i < bs_interactionCount; ++i)
	{
		names[i] = bsInteractionName((bsInteractionType)i);
	}
}

// particles.interaction is neither a name nor an object: the error lists the names.
static bool bsFailInteraction(bsCtx* c, const cJSON* v)
{
	const char* names[bs_interactionCount];
	bsInteractionNames(names);
	char list[256], what[300];
	bsJoinNames(list, sizeof list, names, bs_interactionCount, true);
	snprintf(what, sizeof what, "a type name (%s) or an object", list);
	bsPushKey(c, "interaction");
	return bsFailExpected(c, what, v);
}

// The interaction's type, from a name or an object's "type" (required there).
static bool bsReadInteractionType(bsCtx* c, const cJSON* v, const cJSON* parent, bsInteractionType* type)
{
	const char* names[bs_interactionCount];
	bsInteractionNames(names);
	int chosen = 0;
	if (cJSON_IsString(v))
	{
		if (!bsReadChoice(c, parent, "interaction", true, names, bs_interactionCount, 0, &chosen))
		{
			return false;
		}
	}
	else
	{
		size_t mark = bsPushKey(c, "interaction");
		if (!bsReadChoice(c, v, "type", true, names, bs_interactionCount, 0, &chosen))
		{
			return false;
		}
		bsPop(c, mark);
	}
	return bsParseInteraction(names[chosen], type);
}

// The type of particles.interaction v: as it says, or with a material (which has set d's type) the
// material's when it says none (an object without "type"), and an error when it says another.
static bool bsReadInteractionTypeWith(bsCtx* c, const cJSON* v, const cJSON* particles, const char* material,
	bsInteractionDef* d)
{
	if (material != NULL && cJSON_IsObject(v) && bsMember(v, "type") == NULL)
	{
		return true;
	}
	bsInteractionType type;
	if (!bsReadInteractionType(c, v, particles, &type))
	{
		return false;
	}
	if (material != NULL && type != d->type)
	{
		bsPushKey(c, "interaction");
		if (cJSON_IsObject(v))
		{
			bsPushKey(c, "type");
		}
		return bsFail(c, "\"%s\" does not go with particles.material \"%s\", a \"%s\" material (give \"%s\" or "
			"leave the type out)", bsInteractionName(type), material, bsInteractionName(d->type),
			bsInteractionName(d->type));
	}
	d->type = type;
	return true;
}

// A key of v that its setting does not use: an error at it saying what it needs.
static bool bsFailUnused(bsCtx* c, const cJSON* v, const char* key, const char* needs)
{
	if (bsMember(v, key) == NULL)
	{
		return true;
	}
	bsPushKey(c, key);
	return bsFail(c, "%s is used only with %s", key, needs);
}

// The granular keys the table does not read: contact_model, rotation, rolling_model and spring_turn;
// each law's keys only with it, a rolling friction only with rotation, the spring's turn "project"
// only with the tangential spring.
static bool bsReadGranularKeys(bsCtx* c, const cJSON* v, bsInteractionDef* d)
{
	const char* laws[bs_contactModelCount];
	for (int k = 0; k < bs_contactModelCount; ++k)
	{
		laws[k] = bsContactModelName((bsContactModel)k);
	}
	const char* rolling[bs_rollingModelCount];
	for (int k = 0; k < bs_rollingModelCount; ++k)
	{
		rolling[k] = bsRollingModelName((bsRollingModel)k);
	}
	const char* turns[bs_springTurnCount];
	for (int k = 0; k < bs_springTurnCount; ++k)
	{
		turns[k] = bsSpringTurnName((bsSpringTurn)k);
	}
	int law = (int)d->contactModel, roll = (int)d->rollingModel, turn = (int)d->springTurn;
	if (!bsReadChoice(c, v, "contact_model", false, laws, bs_contactModelCount, law, &law) ||
		!bsReadBool(c, v, "rotation", d->rotation, &d->rotation) ||
		!bsReadChoice(c, v, "rolling_model", false, rolling, bs_rollingModelCount, roll, &roll) ||
		!bsReadChoice(c, v, "spring_turn", false, turns, bs_springTurnCount, turn, &turn))
	{
		return false;
	}
	d->contactModel = (bsContactModel)law;
	d->rollingModel = (bsRollingModel)roll;
	d->springTurn = (bsSpringTurn)turn;
	static const char* const hooke[] = {"contact_time", "stiffness", "tangential_damping", "tangential_stiffness"};
	static const char* const hertz[] = {"youngs_modulus", "poisson_ratio"};
	bool isHertz = d->contactModel == bs_contactHertz;
	for (int k = 0; k < BS_COUNT(hooke); ++k)
	{
		if (isHertz && !bsFailUnused(c, v, hooke[k], "contact_model \"hooke\""))
		{
			return false;
		}
	}
	for (int k = 0; k < BS_COUNT(hertz); ++k)
	{
		if (!isHertz && !bsFailUnused(c, v, hertz[k], "contact_model \"hertz\""))
		{
			return false;
		}
	}
	if (d->rollingModel == bs_rollingEpsd2 && !isHertz && !(d->tangentialStiffness > 0.0))
	{
		bsPushKey(c, "rolling_model");
		return bsFail(c, "\"epsd2\" needs the tangential spring: tangential_stiffness > 0 (or contact_model \"hertz\")");
	}
	if (d->springTurn != bs_springTurnRescale && !isHertz && !(d->tangentialStiffness > 0.0))
	{
		bsPushKey(c, "spring_turn");
		return bsFail(c, "\"%s\" turns the tangential spring, which needs tangential_stiffness > 0 (or contact_model "
			"\"hertz\")", bsSpringTurnName(d->springTurn));
	}
	if (d->bondStrength > 0.0 && !isHertz && !(d->tangentialStiffness > 0.0))
	{
		bsPushKey(c, "bond_strength");
		return bsFail(c, "sintered bonds need the tangential spring: tangential_stiffness > 0 (or contact_model \"hertz\")");
	}
	if (d->rollingFresh >= 0.0 && !(d->rotation && d->rollingModel == bs_rollingEpsd2 && d->bondStrength > 0.0))
	{
		bsPushKey(c, "rolling_friction_fresh");
		return bsFail(c, "a fresh contact's rolling friction ages with its bond: it needs rotation: true, "
			"rolling_model \"epsd2\" and bond_strength > 0");
	}
	if (d->frictionFresh >= 0.0 && !(d->bondStrength > 0.0))
	{
		bsPushKey(c, "friction_fresh");
		return bsFail(c, "a fresh contact's friction ages with its bond: it needs bond_strength > 0");
	}
	// A rolling friction without spin would do nothing: say so (0, as --set may give it, is fine).
	return d->rotation || d->rollingFriction == 0.0 || bsFailUnused(c, v, "rolling_friction", "rotation: true");
}

// The keys of an interaction object v of d's type into d; contact_time and stiffness exclude each
// other (a stiffness replaces the default contact time).
static bool bsReadInteractionKeys(bsCtx* c, const cJSON* v, bsInteractionDef* d)
{
	size_t inner = bsPushKey(c, "interaction");
	const bsSchemaKey* keys = bsInteractionKeysOf[d->type].keys;
	int count = bsInteractionKeysOf[d->type].count;
	bsSchema schema = {bs_kindObject, keys, count, NULL, NULL};
	if (!bsCheckKeys(c, v, bsInteractionKeys, BS_COUNT(bsInteractionKeys)) ||
		!bsCheckKeysOf(c, v, keys, count, "interaction", bsInteractionName(d->type)) ||
		!bsReadFields(c, v, &schema, d))
	{
		return false;
	}
	if (bsMember(v, "stiffness") != NULL)
	{
		if (bsMember(v, "contact_time") != NULL)
		{
			bsPushKey(c, "stiffness");
			return bsFail(c, "give contact_time or stiffness, not both");
		}
		d->contactTime = 0.0;
	}
	if (d->type == bs_interactionGranular && !bsReadGranularKeys(c, v, d))
	{
		return false;
	}
	bsPop(c, inner);
	return true;
}

// particles.material (a fluid's preset, config_fluid.h) and particles.interaction into
// config->step.interaction: a name (its defaults) or an object whose keys override them. With a
// material the interaction's type is the material's: an object may leave it out, another is an error.
bool bsReadInteraction(bsCtx* c, const cJSON* root, bsConfig* config)
{
	const cJSON* all = bsMember(root, "particles");
	const cJSON* particles = cJSON_IsArray(all) ? all->child : all;  // a list's particles[0]
	const cJSON* v = bsMember(particles, "interaction");
	bsInteractionDef* d = &config->step.interaction;
	const char** material = &config->particles.material;
	size_t mark = bsPushKey(c, "particles");
	if (cJSON_IsArray(all))
	{
		bsPushIndex(c, 0);
	}
	if (!bsReadFluidMaterial(c, particles, d, material))
	{
		return false;
	}
	if (v != NULL && !cJSON_IsString(v) && !cJSON_IsObject(v))
	{
		return bsFailInteraction(c, v);
	}
	if (v != NULL && (!bsReadInteractionTypeWith(c, v, particles, *material, d) ||
			(cJSON_IsObject(v) && !bsReadInteractionKeys(c, v, d))))
	{
		return false;
	}
	if (d->type == bs_interactionFluid && !bsCheckFluid(c, v, d))
	{
		return false;
	}
	bsPop(c, mark);
	// With an interaction the substeps are planned unless motion.substeps gives them.
	config->step.substeps = d->type == bs_interactionNone ? 1 : 0;
	return true;
}
