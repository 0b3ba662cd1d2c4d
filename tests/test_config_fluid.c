// test_config_fluid.c — the fluid's config (docs/config.md, "Fluid materials"): particles.material
// fills the fluid's physical settings and its look, an interaction object's keys override them, every
// fluid key is read into bsFluidDef, and each bad value is an error naming its JSON path.
#include "config.h"
#include "core.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// A minimal valid config with X among the particles' keys.
#define FLUID_ENV "\"environment\": {\"planes\": [{}]}"
#define FLUID_EMITTER "{\"type\": \"grid\", \"min\": [0, 0, 0], \"max\": [1, 1, 1], \"count\": [2, 2, 2]}"
#define FLUID(X) "{" FLUID_ENV ", \"particles\": {\"radius\": 0.1, " X ", \"emitters\": [" FLUID_EMITTER "]}}"
#define FLUID_WITH(X, Y) "{" FLUID_ENV ", \"particles\": {\"radius\": 0.1, " X ", \"emitters\": [" FLUID_EMITTER \
	"]}, " Y "}"

static bsResult Parse(const char* text, const char* override, bsConfig* c, bsConfigError* error)
{
	const char* overrides[1] = {override};
	bsResult r = bsConfig_ParseWithOverrides(text, strlen(text), "dir/c.json", overrides, override != NULL ? 1 : 0,
		c, error);
	if (r != bs_ok)
	{
		fprintf(stderr, "%s\n", error->message);
	}
	return r;
}

// The solver's settings, which no material sets, are the engine's defaults.
static bool SolverDefaults(const bsFluidDef* f)
{
	bsFluidDef d = bsDefaultInteractionDef().fluid;
	return f->maxViscosity == d.maxViscosity && f->densityError == d.densityError &&
		f->divergenceError == d.divergenceError && f->maxIterations == d.maxIterations &&
		f->viscosityError == d.viscosityError && f->maxViscosityIterations == d.maxViscosityIterations &&
		f->cfl == d.cfl;
}

// Each material: the fluid with its values, the solver's defaults, its look, the substeps planned.
static int TestMaterials(void)
{
	bsConfig c;
	bsConfigError error;
	ENSURE(Parse(FLUID("\"material\": \"slime\""), NULL, &c, &error) == bs_ok);
	const bsInteractionDef* d = &c.step.interaction;
	ENSURE(d->type == bs_interactionFluid && strcmp(bsInteractionName(d->type), "fluid") == 0);
	ENSURE(d->density == 1000.0 && d->fluid.kinematicViscosity == 1.0 && d->fluid.yieldStress == 0.0);
	ENSURE(d->fluid.flowIndex == 1.0 && d->fluid.surfaceTension == 0.2 && d->fluid.adhesion == 0.2);
	ENSURE(isnan(d->fluid.wallViscosity) && SolverDefaults(&d->fluid));
	ENSURE(strcmp(c.particles.material, "slime") == 0 && strcmp(c.render.particleMaterial.preset, "slime") == 0);
	ENSURE(c.step.substeps == 0);
	bsConfig_Free(&c);

	ENSURE(Parse(FLUID("\"material\": \"mud\""), NULL, &c, &error) == bs_ok);
	ENSURE(d->density == 1800.0 && d->fluid.yieldStress == 400.0 && d->fluid.flowIndex == 1.0 / 3.0);
	ENSURE(d->fluid.kinematicViscosity == 0.0667 && strcmp(c.render.particleMaterial.preset, "mud") == 0);
	bsConfig_Free(&c);

	ENSURE(Parse(FLUID("\"material\": \"water\""), NULL, &c, &error) == bs_ok);
	ENSURE(d->density == 998.2 && d->fluid.kinematicViscosity == 1.003e-6 && d->fluid.surfaceTension == 0.05);
	ENSURE(d->fluid.adhesion == 0.01 && strcmp(c.render.particleMaterial.preset, "glass") == 0);
	bsConfig_Free(&c);

	const char* looks[][2] = {{"oil", "oil"}, {"honey", "honey"}};
	for (int i = 0; i < 2; ++i)
	{
		char text[512];
		snprintf(text, sizeof text, FLUID("\"material\": \"%s\""), looks[i][0]);
		ENSURE(Parse(text, NULL, &c, &error) == bs_ok);
		ENSURE(d->type == bs_interactionFluid && d->fluid.kinematicViscosity > 1e-6 && d->density > 800.0);
		ENSURE(strcmp(c.render.particleMaterial.preset, looks[i][1]) == 0);
		ENSURE(bsMaterialPreset(looks[i][1]) != NULL);
		bsConfig_Free(&c);
	}

	// Without a material: no fluid, the snow look, no material in the config.
	ENSURE(Parse(FLUID("\"velocity\": [0, 0, 0]"), NULL, &c, &error) == bs_ok);
	ENSURE(d->type == bs_interactionNone && c.particles.material == NULL && c.step.substeps == 1);
	ENSURE(strcmp(c.render.particleMaterial.preset, "snow") == 0);
	bsConfig_Free(&c);
	return 0;
}

// An interaction object's keys win over the material's, with or without its type; --set too; a
// render.particle_material given wins over the material's look.
static int TestOverrides(void)
{
	bsConfig c;
	bsConfigError error;
	const bsInteractionDef* d = &c.step.interaction;
	ENSURE(Parse(FLUID("\"material\": \"slime\", \"interaction\": {\"type\": \"fluid\", \"yield_stress\": 20}"), NULL,
		&c, &error) == bs_ok);
	ENSURE(d->fluid.yieldStress == 20.0 && d->fluid.kinematicViscosity == 1.0 && d->fluid.surfaceTension == 0.2);
	bsConfig_Free(&c);

	ENSURE(Parse(FLUID("\"material\": \"honey\", \"interaction\": {\"density\": 1400, \"wall_viscosity\": 0, "
		"\"cfl\": 0.25}"), NULL, &c, &error) == bs_ok);
	ENSURE(d->type == bs_interactionFluid && d->density == 1400.0 && d->fluid.wallViscosity == 0.0);
	ENSURE(d->fluid.cfl == 0.25 && d->fluid.kinematicViscosity == 0.0134);
	bsConfig_Free(&c);

	ENSURE(Parse(FLUID("\"material\": \"mud\", \"interaction\": \"fluid\""), NULL, &c, &error) == bs_ok);
	ENSURE(d->fluid.yieldStress == 400.0);
	bsConfig_Free(&c);

	ENSURE(Parse(FLUID("\"material\": \"slime\""), "particles.interaction.kinematic_viscosity=2", &c, &error) == bs_ok);
	ENSURE(d->fluid.kinematicViscosity == 2.0 && d->density == 1000.0);
	bsConfig_Free(&c);

	ENSURE(Parse(FLUID("\"material\": \"water\""), "particles.material=mud", &c, &error) == bs_ok);
	ENSURE(d->fluid.yieldStress == 400.0 && strcmp(c.particles.material, "mud") == 0);
	bsConfig_Free(&c);

	ENSURE(Parse(FLUID_WITH("\"material\": \"slime\"", "\"render\": {\"particle_material\": \"metal\"}"), NULL, &c,
		&error) == bs_ok);
	ENSURE(strcmp(c.render.particleMaterial.preset, "metal") == 0 && d->type == bs_interactionFluid);
	bsConfig_Free(&c);
	return 0;
}

// Without a material: the fluid's defaults are the engine's, and every key goes to its field.
static int TestKeys(void)
{
	bsConfig c;
	bsConfigError error;
	const bsInteractionDef* d = &c.step.interaction;
	ENSURE(Parse(FLUID("\"interaction\": \"fluid\""), NULL, &c, &error) == bs_ok);
	bsInteractionDef def = bsDefaultInteractionDef();
	ENSURE(d->type == bs_interactionFluid && d->density == def.density && c.particles.material == NULL);
	ENSURE(d->fluid.kinematicViscosity == def.fluid.kinematicViscosity && isnan(d->fluid.wallViscosity));
	ENSURE(d->fluid.yieldStress == def.fluid.yieldStress && d->fluid.flowIndex == def.fluid.flowIndex);
	ENSURE(d->fluid.surfaceTension == def.fluid.surfaceTension && d->fluid.adhesion == def.fluid.adhesion);
	ENSURE(SolverDefaults(&d->fluid) && strcmp(c.render.particleMaterial.preset, "snow") == 0);
	bsConfig_Free(&c);

	ENSURE(Parse(FLUID("\"interaction\": {\"type\": \"fluid\", \"density\": 1200, \"kinematic_viscosity\": 0.5, "
		"\"wall_viscosity\": 0.25, \"yield_stress\": 30, \"flow_index\": 0.5, \"max_viscosity\": 50, "
		"\"surface_tension\": 0.1, \"adhesion\": 0.3, \"density_error\": 0.001, \"divergence_error\": 0.002, "
		"\"max_iterations\": 50, \"viscosity_error\": 0.01, \"max_viscosity_iterations\": 300, \"cfl\": 1}"),
		NULL, &c, &error) == bs_ok);
	const bsFluidDef* f = &d->fluid;
	ENSURE(d->density == 1200.0 && f->kinematicViscosity == 0.5 && f->wallViscosity == 0.25);
	ENSURE(f->yieldStress == 30.0 && f->flowIndex == 0.5 && f->maxViscosity == 50.0);
	ENSURE(f->surfaceTension == 0.1 && f->adhesion == 0.3 && f->densityError == 0.001);
	ENSURE(f->divergenceError == 0.002 && f->maxIterations == 50 && f->viscosityError == 0.01);
	ENSURE(f->maxViscosityIterations == 300 && f->cfl == 1.0);
	bsConfig_Free(&c);
	return 0;
}

typedef struct BadFluid
{
	const char* particles;  // the particles' keys besides radius and emitters
	const char* override;   // NULL: none
	const char* message;
} BadFluid;

#define BAD_KEY(K, V) "\"interaction\": {\"type\": \"fluid\", \"" K "\": " V "}"
#define AT(K) "dir/c.json: particles.interaction." K ": "

static const BadFluid badFluids[] = {
	{BAD_KEY("kinematic_viscosity", "-1"), NULL, AT("kinematic_viscosity") "expected a number >= 0, got -1"},
	{BAD_KEY("density", "0"), NULL, AT("density") "expected a number > 0, got 0"},
	{"\"material\": \"mud\"", "particles.interaction.yield_stress=NaN",
		AT("yield_stress") "expected a number >= 0, got \"NaN\" (set by --set)"},
	{"\"material\": \"mud\"", "particles.interaction.yield_stress=1e999",
		AT("yield_stress") "expected a number >= 0, got inf (set by --set)"},
	{BAD_KEY("yield_stress", "-5"), NULL, AT("yield_stress") "expected a number >= 0, got -5"},
	{BAD_KEY("wall_viscosity", "-1e-6"), NULL, AT("wall_viscosity") "expected a number >= 0, got -1e-06"},
	{BAD_KEY("flow_index", "0.1"), NULL, AT("flow_index") "expected a number from 0.2 to 2, got 0.1"},
	{BAD_KEY("flow_index", "2.5"), NULL, AT("flow_index") "expected a number from 0.2 to 2, got 2.5"},
	{BAD_KEY("surface_tension", "-0.1"), NULL, AT("surface_tension") "expected a number >= 0, got -0.1"},
	{BAD_KEY("adhesion", "\"lots\""), NULL, AT("adhesion") "expected a number >= 0, got \"lots\""},
	{BAD_KEY("density_error", "0"), NULL, AT("density_error") "expected a number > 0, got 0"},
	{BAD_KEY("divergence_error", "-1"), NULL, AT("divergence_error") "expected a number > 0, got -1"},
	{BAD_KEY("viscosity_error", "0"), NULL, AT("viscosity_error") "expected a number > 0, got 0"},
	{BAD_KEY("max_iterations", "0"), NULL, AT("max_iterations") "expected an integer from 1 to 10000, got 0"},
	{BAD_KEY("max_viscosity_iterations", "10001"), NULL,
		AT("max_viscosity_iterations") "expected an integer from 1 to 10000, got 10001"},
	{BAD_KEY("cfl", "0"), NULL, AT("cfl") "expected a number > 0 and <= 1, got 0"},
	{BAD_KEY("cfl", "1.5"), NULL, AT("cfl") "expected a number > 0 and <= 1, got 1.5"},
	{"\"interaction\": {\"type\": \"fluid\", \"kinematic_viscosity\": 2, \"max_viscosity\": 1}", NULL,
		AT("max_viscosity") "expected a number >= kinematic_viscosity (2), got 1"},
	{BAD_KEY("kinematic_viscosity", "2000"), NULL, AT("kinematic_viscosity") "kinematic viscosity 2000 is above "
		"max_viscosity 1000 (the default cap): give a max_viscosity of at least 2000"},
	{"\"material\": \"slime\"", "particles.interaction.max_viscosity=0.5",
		AT("max_viscosity") "expected a number >= kinematic_viscosity (1), got 0.5 (set by --set)"},
	{BAD_KEY("cohesion", "2"), NULL, AT("cohesion") "not used by a \"fluid\" interaction (its keys: type, density, "
		"kinematic_viscosity, wall_viscosity, yield_stress, flow_index, max_viscosity, surface_tension, adhesion, "
		"density_error, density_error_max, divergence_error, max_iterations, viscosity_error, max_viscosity_iterations, cfl)"},
	{"\"interaction\": {\"type\": \"granular\", \"yield_stress\": 2}", NULL, AT("yield_stress") "not used by a "
		"\"granular\" interaction (its keys: type, density, cohesion, cohesion_range, viscosity, skin, restitution, "
		"contact_time, stiffness, friction, tangential_damping, tangential_stiffness, contact_model, youngs_modulus, "
		"poisson_ratio, rotation, rolling_friction, rolling_friction_fresh, friction_fresh, rolling_model, spring_turn, bond_strength, "
		"sintering_time, wall_bond)"},
	{"\"interaction\": {\"type\": \"granular\", \"bond_strength\": 5}", NULL, AT("bond_strength") "sintered "
		"bonds need the tangential spring: tangential_stiffness > 0 (or contact_model \"hertz\")"},
	{"\"interaction\": {\"type\": \"granular\", \"rotation\": true, \"rolling_friction_fresh\": 0}", NULL,
		AT("rolling_friction_fresh") "a fresh contact's rolling friction ages with its bond: it needs rotation: "
		"true, rolling_model \"epsd2\" and bond_strength > 0"},
	{"\"interaction\": {\"type\": \"granular\", \"friction_fresh\": 0}", NULL,
		AT("friction_fresh") "a fresh contact's friction ages with its bond: it needs bond_strength > 0"},
	{"\"interaction\": {\"type\": \"fluid\", \"yeild_stress\": 2}", NULL,
		AT("yeild_stress") "unknown key (did you mean 'yield_stress'?)"},
	{"\"material\": \"slime\", \"interaction\": {\"type\": \"granular\"}", NULL, AT("type") "\"granular\" does not "
		"go with particles.material \"slime\", a \"fluid\" material (give \"fluid\" or leave the type out)"},
	{"\"material\": \"mud\", \"interaction\": \"repulsion\"", NULL, "dir/c.json: particles.interaction: "
		"\"repulsion\" does not go with particles.material \"mud\", a \"fluid\" material (give \"fluid\" or leave "
		"the type out)"},
	{"\"interaction\": {\"yield_stress\": 2}", NULL, "dir/c.json: particles.interaction: missing required key 'type'"},
	{"\"material\": \"lava\"", NULL, "dir/c.json: particles.material: expected one of \"water\", \"oil\", \"honey\", "
		"\"slime\", \"mud\", got \"lava\""},
	{"\"material\": \"honney\"", NULL, "dir/c.json: particles.material: expected one of \"water\", \"oil\", "
		"\"honey\", \"slime\", \"mud\", got \"honney\" (did you mean \"honey\"?)"},
	{"\"material\": {\"type\": \"slime\"}", NULL, "dir/c.json: particles.material: expected one of \"water\", "
		"\"oil\", \"honey\", \"slime\", \"mud\", got {\"type\": \"slime\"}"},
};

// Each bad value: bs_errInvalidArgument, the message naming its JSON path, nothing left to free.
static int TestBadValues(void)
{
	int failed = 0;
	for (int i = 0; i < BS_COUNT(badFluids); ++i)
	{
		const BadFluid* b = badFluids + i;
		char text[1024];
		snprintf(text, sizeof text, FLUID("%s"), b->particles);
		const char* overrides[1] = {b->override};
		bsConfig c;
		bsConfigError error;
		bsResult r = bsConfig_ParseWithOverrides(text, strlen(text), "dir/c.json", overrides,
			b->override != NULL ? 1 : 0, &c, &error);
		if (r != bs_errInvalidArgument || strcmp(error.message, b->message) != 0)
		{
			fprintf(stderr, "case %d: result %d\n  got      '%s'\n  expected '%s'\n", i, (int)r, error.message,
				b->message);
			failed += 1;
		}
		bsConfig_Free(&c);
	}
	ENSURE(failed == 0);
	return 0;
}

int ConfigFluidTest(void)
{
	RUN_SUBTEST(TestMaterials());
	RUN_SUBTEST(TestOverrides());
	RUN_SUBTEST(TestKeys());
	RUN_SUBTEST(TestBadValues());
	return 0;
}
