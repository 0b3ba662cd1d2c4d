// config_species.c — particles: one species or a list of them (radius, lifetime, look, over-life ramps,
// buoyancy, emitters), and interactions: the rules between species.
#include "config_read.h"

#include "config_material.h"
#include "config_track.h"
#include "config_trail.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// particles.over_life: ramps keyed by age (config.h: bsOverLifeConfig), read by bsReadOverLife.
static const bsSchemaKey bsOverLifeKeys[] = {BS_KEY("radius", &bsTrackArraySchema),
	BS_KEY("color", &bsTrackArraySchema), BS_KEY("opacity", &bsTrackArraySchema)};

static const bsSchema bsOverLifeSchema = BS_OBJECT(bsOverLifeKeys);

// motion.buoyancy and particles[k].buoyancy: a lift that decays with each particle's age (step.h: bsBuoyancyDef).
static const bsSchemaKey bsBuoyancyKeys[] = {
	BS_REQUIRED_VEC3("acceleration", bsBuoyancyDef, acceleration, &bsAnyNumber, "3 numbers"),
	BS_NUMBER_IN("decay", bsBuoyancyDef, decay, &bsNonNegative)};

const bsSchema bsBuoyancySchema = BS_OBJECT(bsBuoyancyKeys);

static const bsSchemaKey bsParticlesKeys[] = {
	BS_REQUIRED_NUMBER("radius", bsParticlesConfig, radius, &bsPositive),
	BS_NUMBER("radius_spread", bsParticlesConfig, radiusSpread, &bsUnit, 0),
	BS_VEC3("velocity", bsParticlesConfig, velocity, &bsAnyNumber, "3 numbers", 0, 0, 0),
	BS_NUMBER("lifetime", bsParticlesConfig, lifetime, &bsPositive, (double)INFINITY),
	BS_KEY("accumulate", BS_VALUE),
	BS_KEY("interaction", &bsInteractionSchema),
	BS_KEY("material", BS_VALUE),
	BS_KEY("over_life", &bsOverLifeSchema),
	BS_KEY("name", BS_VALUE),
	BS_KEY("look", &bsMaterialSchema),
	BS_KEY("buoyancy", &bsBuoyancySchema),
	BS_KEY("cohesion", BS_VALUE),
	BS_KEY("cohesion_range", BS_VALUE),
	BS_KEY("density", BS_VALUE),
	BS_KEY("emitters", &bsEmitterArraySchema)};

// An object, or (element: itself) a list of such objects, one a species (--set walks either).
const bsSchema bsParticlesSchema = {bs_kindObject, bsParticlesKeys, BS_COUNT(bsParticlesKeys), &bsParticlesSchema,
	NULL};

// interactions: rules between species (bsSpeciesPair), read by bsReadInteractions.
static const bsSchemaKey bsSpeciesPairKeys[] = {BS_KEY("between", BS_VALUE), BS_KEY("interact", BS_VALUE),
	BS_KEY("restitution", BS_VALUE), BS_KEY("friction", BS_VALUE), BS_KEY("cohesion", BS_VALUE),
	BS_KEY("cohesion_range", BS_VALUE)};

// cohesion_range, as particles.interaction's.
static const bsRange bsCohesionRange = {1.0, 1000.0, false, "a number from 1 to 1000"};

static const bsSchema bsSpeciesPairSchema = BS_ELEMENT(bsSpeciesPairKeys, "an object (a rule between two species)");

const bsSchema bsSpeciesPairArraySchema = BS_ARRAY(&bsSpeciesPairSchema);

// particles.over_life, when given: its ramps, the radius's > 0, the colour's >= 0, the opacity's in 0..1;
// a colour without an opacity is opaque, an opacity without a colour white.
static bool bsReadOverLife(bsCtx* c, const cJSON* particles, bsOverLifeConfig* out)
{
	const cJSON* o;
	if (!bsReadObject(c, particles, "over_life", &bsOverLifeSchema, &o))
	{
		return false;
	}
	out->radiusScale = bsConstantTrack(bsV3(1.0, 0.0, 0.0));
	out->color = bsConstantTrack(bsV3(1.0, 1.0, 1.0));
	out->opacity = bsConstantTrack(bsV3(1.0, 0.0, 0.0));
	if (o == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, "over_life");
	if (!bsReadRamp(c, o, "radius", true, &bsPositive, &out->radiusScale, &out->hasRadius) ||
		!bsReadRamp(c, o, "color", false, &bsNonNegative, &out->color, &out->hasColor) ||
		!bsReadRamp(c, o, "opacity", true, &bsUnit, &out->opacity, &out->hasOpacity))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

// The keys only particles[0] of a list may give: every species shares them.
static const char* const bsSharedParticleKeys[] = {"accumulate", "interaction", "material"};

// particles[k]'s name: required in a list (and unique there), "particles" for a single object.
static bool bsReadSpeciesName(bsCtx* c, const cJSON* o, bool list, const bsParticlesConfig* p, bsSpeciesConfig* sp)
{
	const cJSON* v = bsMember(o, "name");
	if (v == NULL && list)
	{
		return bsMissing(c, "name");
	}
	if (v != NULL && (!cJSON_IsString(v) || v->valuestring[0] == '\0'))
	{
		bsPushKey(c, "name");
		return bsFailExpected(c, "a non-empty string", v);
	}
	const char* name = v != NULL ? v->valuestring : "particles";
	for (int k = 0; k < p->speciesCount - 1; ++k)
	{
		if (strcmp(p->species[k].name, name) == 0)
		{
			bsPushKey(c, "name");
			return bsFail(c, "\"%s\" is particles[%d]'s name already: each species needs its own", name, k);
		}
	}
	sp->name = bsStrDup(name);
	return sp->name != NULL || bsOutOfMemory(c);
}

// A species' own interaction settings (bsSpeciesConfig: NaN where not given).
static bool bsReadSpeciesInteraction(bsCtx* c, const cJSON* o, bsSpeciesConfig* sp)
{
	return bsReadNumber(c, o, "cohesion", false, &bsNonNegative, (double)NAN, &sp->cohesion) &&
		bsReadNumber(c, o, "cohesion_range", false, &bsCohesionRange, (double)NAN, &sp->cohesionRange) &&
		bsReadNumber(c, o, "density", false, &bsPositive, (double)NAN, &sp->density);
}

// One species, o, at particles[index] (a list) or particles: its fields into p->species[index] and its
// emitters appended to p->emitters (which has room). The path is at the species.
static bool bsReadSpecies(bsCtx* c, const cJSON* o, int index, bool list, bsParticlesConfig* p)
{
	bsSpeciesConfig* sp = p->species + index;
	p->speciesCount = index + 1;
	if (!cJSON_IsObject(o))
	{
		return bsFailExpected(c, "an object (a species)", o);
	}
	for (int k = 0; index > 0 && k < BS_COUNT(bsSharedParticleKeys); ++k)
	{
		if (bsMember(o, bsSharedParticleKeys[k]) != NULL)
		{
			bsPushKey(c, bsSharedParticleKeys[k]);
			return bsFail(c, "every species shares it: give it in particles[0]");
		}
	}
	bsParticlesConfig one;
	memset(&one, 0, sizeof(one));
	one.particleCount = p->particleCount;
	const cJSON* emitters;
	int count = 0;
	if (!bsCheckKeys(c, o, bsParticlesKeys, BS_COUNT(bsParticlesKeys)) || !bsReadSpeciesName(c, o, list, p, sp) ||
		!bsReadFields(c, o, &bsParticlesSchema, &one) || !bsReadOverLife(c, o, &sp->overLife) ||
		(bsMember(o, "look") != NULL && !bsReadMaterial(c, o, "look", "snow", &sp->look)) ||
		(bsMember(o, "buoyancy") != NULL && !bsReadSection(c, o, "buoyancy", &bsBuoyancySchema, &sp->buoyancy)) ||
		!bsReadSpeciesInteraction(c, o, sp) ||
		!bsReadArray(c, o, "emitters", "an array of emitters", &emitters, &count))
	{
		return false;
	}
	sp->hasLook = bsMember(o, "look") != NULL;
	sp->hasBuoyancy = bsMember(o, "buoyancy") != NULL;
	sp->radius = one.radius;
	sp->radiusSpread = one.radiusSpread;
	sp->velocity = one.velocity;
	sp->lifetime = one.lifetime;
	if (emitters == NULL)
	{
		return bsMissing(c, "emitters");
	}
	// An empty array is allowed: no particles, the environment alone (the paper's Fig. 8a).
	bsEmitterConfig* mine = p->emitters + p->emitterCount;
	int read = 0;
	bool ok = bsReadElements(c, "emitters", emitters, bsReadEmitter, mine, sizeof *mine, &read, &one);
	for (int k = 0; k < read; ++k)
	{
		mine[k].species = index;
	}
	p->emitterCount += read;  // what a failure leaves is freed with the config
	p->particleCount = one.particleCount;
	return ok;
}

// The emitters of every species (an array's elements' emitters, or the object's); 0 when not arrays.
static int bsCountEmitters(const cJSON* v)
{
	int n = 0;
	for (const cJSON* e = cJSON_IsArray(v) ? v->child : v; e != NULL; e = cJSON_IsArray(v) ? e->next : NULL)
	{
		const cJSON* emitters = bsMember(e, "emitters");
		n += cJSON_IsArray(emitters) ? cJSON_GetArraySize(emitters) : 0;
	}
	return n;
}

// particles: one species (an object) or a list of 1 .. BS_MAX_SPECIES; the first species' fields are
// also p's own (radius, ...), and particles[0]'s accumulate is every species'.
bool bsReadParticles(bsCtx* c, const cJSON* root, bsParticlesConfig* p)
{
	const cJSON* v = bsMember(root, "particles");
	if (v == NULL)
	{
		return bsMissing(c, "particles");
	}
	size_t mark = bsPushKey(c, "particles");
	bool list = cJSON_IsArray(v);
	int n = list ? cJSON_GetArraySize(v) : 1;
	p->speciesList = list;
	if (!list && !cJSON_IsObject(v))
	{
		return bsFailExpected(c, "an object (one species) or an array of species", v);
	}
	if (n < 1 || n > BS_MAX_SPECIES)
	{
		return bsFail(c, "expected 1 to %d species, got %d", BS_MAX_SPECIES, n);
	}
	p->species = calloc((size_t)n, sizeof *p->species);
	p->emitters = calloc((size_t)bsCountEmitters(v) + 1, sizeof *p->emitters);
	if (p->species == NULL || p->emitters == NULL)
	{
		return bsOutOfMemory(c);
	}
	int k = 0;
	for (const cJSON* e = list ? v->child : v; e != NULL; e = list ? e->next : NULL, ++k)
	{
		size_t imark = list ? bsPushIndex(c, k) : 0;
		if (!bsReadSpecies(c, e, k, list, p))
		{
			return false;
		}
		if (list)
		{
			bsPop(c, imark);
		}
	}
	const cJSON* first = list ? v->child : v;
	const bsSpeciesConfig* s0 = p->species;
	p->radius = s0->radius;
	p->radiusSpread = s0->radiusSpread;
	p->velocity = s0->velocity;
	p->lifetime = s0->lifetime;
	p->overLife = s0->overLife;
	if (list)
	{
		bsPushIndex(c, 0);
	}
	if (!bsReadBool(c, first, "accumulate", false, &p->accumulate))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}

// between[i] (the path at it): the index of a species named so, else an error naming the species.
bool bsReadSpeciesRef(bsCtx* c, const cJSON* v, const bsParticlesConfig* pc, int* out)
{
	if (!cJSON_IsString(v))
	{
		return bsFailExpected(c, "a species' name (particles[k].name)", v);
	}
	const char* names[BS_MAX_SPECIES];
	for (int k = 0; k < pc->speciesCount; ++k)
	{
		names[k] = pc->species[k].name;
		if (strcmp(v->valuestring, names[k]) == 0)
		{
			*out = k;
			return true;
		}
	}
	const char* near = bsClosest(v->valuestring, names, pc->speciesCount);
	char list[512];
	bsJoinNames(list, sizeof list, names, pc->speciesCount, true);
	if (near != NULL)
	{
		return bsFail(c, "no species \"%.64s\" (did you mean \"%s\"?)", v->valuestring, near);
	}
	return bsFail(c, "no species \"%.64s\" (species: %s)", v->valuestring, list);
}

// One rule, interactions[i]: its pair, then its settings over the pair's (the interaction's so far).
static bool bsReadSpeciesPair(bsCtx* c, const cJSON* v, void* element, void* user)
{
	(void)element;
	bsConfig* config = user;
	const bsParticlesConfig* pc = &config->particles;
	if (!cJSON_IsObject(v))
	{
		return bsFailExpected(c, bsSpeciesPairSchema.what, v);
	}
	const cJSON* between = bsMember(v, "between");
	if (!bsCheckKeys(c, v, bsSpeciesPairKeys, BS_COUNT(bsSpeciesPairKeys)))
	{
		return false;
	}
	if (between == NULL)
	{
		return bsMissing(c, "between");
	}
	size_t mark = bsPushKey(c, "between");
	if (!cJSON_IsArray(between) || cJSON_GetArraySize(between) != 2)
	{
		return bsFailExpected(c, "2 species' names", between);
	}
	int ab[2];
	for (int k = 0; k < 2; ++k)
	{
		size_t imark = bsPushIndex(c, k);
		if (!bsReadSpeciesRef(c, cJSON_GetArrayItem(between, k), pc, ab + k))
		{
			return false;
		}
		bsPop(c, imark);
	}
	bsPop(c, mark);
	int n = pc->speciesCount;
	bsSpeciesPair rule = config->speciesPairs[ab[0] * n + ab[1]];
	if (!bsReadBool(c, v, "interact", rule.interact, &rule.interact) ||
		!bsReadNumber(c, v, "restitution", false, &(bsRange){0.0, 1.0, true, "a number > 0 and <= 1"}, rule.restitution,
			&rule.restitution) ||
		!bsReadNumber(c, v, "friction", false, &bsNonNegative, rule.friction, &rule.friction) ||
		!bsReadNumber(c, v, "cohesion", false, &bsNonNegative, rule.cohesion, &rule.cohesion) ||
		!bsReadNumber(c, v, "cohesion_range", false, &bsCohesionRange, rule.cohesionRange, &rule.cohesionRange))
	{
		return false;
	}
	config->speciesPairs[ab[0] * n + ab[1]] = rule;
	config->speciesPairs[ab[1] * n + ab[0]] = rule;
	return true;
}

// The first of particles[k].cohesion, cohesion_range and density a species gives (*species, *key), or
// false when none gives one.
static bool bsSpeciesInteractionGiven(const bsParticlesConfig* pc, int* species, const char** key)
{
	for (int k = 0; k < pc->speciesCount; ++k)
	{
		const bsSpeciesConfig* sp = pc->species + k;
		const double given[3] = {sp->cohesion, sp->cohesionRange, sp->density};
		static const char* const keys[3] = {"cohesion", "cohesion_range", "density"};
		for (int j = 0; j < 3; ++j)
		{
			if (!isnan(given[j]))
			{
				*species = k;
				*key = keys[j];
				return true;
			}
		}
	}
	return false;
}

// A table of species needs a pair kind (the fluid ignores it): else an error at the key that asks for one.
static bool bsSpeciesTableRefused(bsCtx* c, const bsConfig* config, bool rules, int species, const char* key)
{
	if (rules)
	{
		bsPushKey(c, "interactions");
	}
	else
	{
		bsPushKey(c, "particles");
		if (config->particles.speciesList)
		{
			bsPushIndex(c, species);
		}
		bsPushKey(c, key);
	}
	const char* what = rules ? "rules between species need" : "a species' own interaction settings need";
	return bsFail(c, "%s particles.interaction \"repulsion\" or \"granular\", not \"%s\"%s", what,
		bsInteractionName(config->step.interaction.type),
		config->step.interaction.type == bs_interactionFluid ? " (the fluid's settings are every species')" : "");
}

// A value species k gives (not NaN), else the interaction's.
static double bsOwnOr(double own, double interaction)
{
	return isnan(own) ? interaction : own;
}

// Every rule before interactions: interacting with the interaction's restitution and friction, and the
// weaker of the two species' cohesions (each its own or the interaction's) with the shorter of their
// ranges (adhesion between unlike materials is bounded by the weaker: a sticky species meets a
// non-sticky one without sticking); a species with itself its own.
static void bsDefaultSpeciesPairs(bsConfig* config)
{
	const bsParticlesConfig* pc = &config->particles;
	const bsInteractionDef* d = &config->step.interaction;
	int n = pc->speciesCount;
	for (int a = 0; a < n; ++a)
	{
		for (int b = 0; b < n; ++b)
		{
			const bsSpeciesConfig* sa = pc->species + a;
			const bsSpeciesConfig* sb = pc->species + b;
			bsSpeciesPair rule = {true, d->restitution, d->friction,
				fmin(bsOwnOr(sa->cohesion, d->cohesion), bsOwnOr(sb->cohesion, d->cohesion)),
				fmin(bsOwnOr(sa->cohesionRange, d->cohesionRange), bsOwnOr(sb->cohesionRange, d->cohesionRange))};
			config->speciesPairs[a * n + b] = rule;
		}
	}
}

// particles[k].density, when a species gives one: every species' (the interaction's where not given).
static bool bsSpeciesDensities(bsCtx* c, bsConfig* config)
{
	const bsParticlesConfig* pc = &config->particles;
	bool any = false;
	for (int k = 0; k < pc->speciesCount; ++k)
	{
		any = any || !isnan(pc->species[k].density);
	}
	if (!any)
	{
		return true;
	}
	config->speciesDensity = calloc((size_t)pc->speciesCount, sizeof(double));
	if (config->speciesDensity == NULL)
	{
		return bsOutOfMemory(c);
	}
	for (int k = 0; k < pc->speciesCount; ++k)
	{
		config->speciesDensity[k] = bsOwnOr(pc->species[k].density, config->step.interaction.density);
	}
	config->step.speciesDensity = config->speciesDensity;
	return true;
}

// interactions, and a species' own cohesion, cohesion_range or density, when given: the table of species
// (step.h: bsStepDef.speciesPairs, speciesDensity), every pair interacting as bsDefaultSpeciesPairs has it
// unless a rule says otherwise; for the pair interactions (repulsion, granular) only.
bool bsReadInteractions(bsCtx* c, const cJSON* root, bsConfig* config)
{
	const cJSON* v;
	int count;
	if (!bsReadArray(c, root, "interactions", "an array of rules between species", &v, &count))
	{
		return false;
	}
	int species = 0;
	const char* key = NULL;
	bool own = bsSpeciesInteractionGiven(&config->particles, &species, &key);
	if (v == NULL && !own)
	{
		return true;
	}
	int type = config->step.interaction.type;
	if (type != bs_interactionRepulsion && type != bs_interactionGranular)
	{
		return bsSpeciesTableRefused(c, config, v != NULL, species, key);
	}
	int n = config->particles.speciesCount;
	config->speciesPairs = calloc((size_t)(n * n), sizeof(bsSpeciesPair));
	if (config->speciesPairs == NULL)
	{
		return bsOutOfMemory(c);
	}
	bsDefaultSpeciesPairs(config);
	int read = 0;
	if (v != NULL && !bsReadElements(c, "interactions", v, bsReadSpeciesPair, config->speciesPairs, 0, &read, config))
	{
		return false;
	}
	config->step.speciesPairs = config->speciesPairs;
	config->step.speciesCount = n;
	return bsSpeciesDensities(c, config);
}
