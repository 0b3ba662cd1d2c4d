// config_fluid.c — the fluid's material presets (particles.material) and the checks across the fluid's
// keys. Each preset is the fluid interaction with a material's physical settings, measured values with
// their sources (docs/config.md, "Fluid materials", gives the same with the references):
//   water   20 C: rho 998.2 kg/m^3, mu 1.0016 mPa s (IAPWS 2008) -> nu 1.003e-6 m^2/s
//   oil     SAE 30 engine oil at 100 C: nu 9.3 to 12.5 mm^2/s (SAE J300), taken 11; rho ~830 (typical)
//   honey   clover honey, 16 % water, 20 C: 190 poise = 19 Pa s, specific gravity 1.42 (White 1975,
//           in Bogdanov's Book of Honey, ch. 4) -> nu 0.0134
//   slime   PVA-borax: a Maxwell fluid whose zero-shear viscosity depends on the recipe; we take
//           mu 1000 Pa s (nu 1 m^2/s, the honey-to-slime bound), rho 1000 (it is ~96 % water)
//   mud     fine natural mud: Herschel-Bulkley with n = 1/3 and K = 0.3 tau_y (Coussot et al. 1998,
//           Coussot 1997); tau_y 400 Pa, within the measured 10^1 to 10^3 Pa; rho 1800 (solids ~0.5)
// Akinci's surface tension gamma and adhesion beta are model coefficients, not N/m: water's are
// SPlisHSPlasH's defaults (0.05 and 0.01), slime's gamma its coiling scenes' 0.2; the others are
// starting values chosen here (docs/config.md says how).
#include "config_fluid.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct bsFluidMaterial
{
	const char* name;
	double density;             // kg/m^3
	double kinematicViscosity;  // m^2/s (Herschel-Bulkley: the consistency K over the density)
	double wallViscosity;       // m^2/s; NaN: as kinematicViscosity
	double yieldStress;         // Pa
	double flowIndex;
	double surfaceTension;      // Akinci's gamma
	double adhesion;            // Akinci's beta
	const char* look;           // the render material preset (config_material.c), NULL: none
} bsFluidMaterial;

static const bsFluidMaterial bsFluidMaterials[] = {
	{"water", 998.2, 1.003e-6, NAN, 0.0, 1.0, 0.05, 0.01, "glass"},
	{"oil", 830.0, 1.1e-5, NAN, 0.0, 1.0, 0.02, 0.01, "oil"},
	{"honey", 1420.0, 0.0134, NAN, 0.0, 1.0, 0.05, 0.05, "honey"},
	{"slime", 1000.0, 1.0, NAN, 0.0, 1.0, 0.2, 0.2, "slime"},
	{"mud", 1800.0, 0.0667, NAN, 400.0, 1.0 / 3.0, 0.05, 0.05, "mud"},
};

static const bsFluidMaterial* bsFluidMaterial_Find(const char* name)
{
	for (int i = 0; name != NULL && i < BS_COUNT(bsFluidMaterials); ++i)
	{
		if (strcmp(name, bsFluidMaterials[i].name) == 0)
		{
			return bsFluidMaterials + i;
		}
	}
	return NULL;
}

const char* bsFluidMaterial_Look(const char* name)
{
	const bsFluidMaterial* m = bsFluidMaterial_Find(name);
	return m != NULL ? m->look : NULL;
}

bool bsReadFluidMaterial(bsCtx* c, const cJSON* particles, bsInteractionDef* def, const char** name)
{
	*name = NULL;
	if (bsMember(particles, "material") == NULL)
	{
		return true;
	}
	const char* names[BS_COUNT(bsFluidMaterials)];
	for (int i = 0; i < BS_COUNT(bsFluidMaterials); ++i)
	{
		names[i] = bsFluidMaterials[i].name;
	}
	int chosen = 0;
	if (!bsReadChoice(c, particles, "material", true, names, BS_COUNT(bsFluidMaterials), 0, &chosen))
	{
		return false;
	}
	const bsFluidMaterial* m = bsFluidMaterials + chosen;
	def->type = bs_interactionFluid;
	def->density = m->density;
	def->fluid.kinematicViscosity = m->kinematicViscosity;
	def->fluid.wallViscosity = m->wallViscosity;
	def->fluid.yieldStress = m->yieldStress;
	def->fluid.flowIndex = m->flowIndex;
	def->fluid.surfaceTension = m->surfaceTension;
	def->fluid.adhesion = m->adhesion;
	*name = m->name;
	return true;
}

bool bsCheckFluid(bsCtx* c, const cJSON* v, const bsInteractionDef* def)
{
	const bsFluidDef* f = &def->fluid;
	if (f->maxViscosity >= f->kinematicViscosity)
	{
		return true;
	}
	char nu[32], cap[32];
	bsFormatNumber(f->kinematicViscosity, nu);
	bsFormatNumber(f->maxViscosity, cap);
	const cJSON* object = cJSON_IsObject(v) ? v : NULL;
	if (bsMember(object, "max_viscosity") != NULL)
	{
		bsPushKey(c, "interaction");
		bsPushKey(c, "max_viscosity");
		return bsFail(c, "expected a number >= kinematic_viscosity (%s), got %s", nu, cap);
	}
	if (bsMember(object, "kinematic_viscosity") != NULL)
	{
		bsPushKey(c, "interaction");
		bsPushKey(c, "kinematic_viscosity");
	}
	else
	{
		bsPushKey(c, "material");
	}
	return bsFail(c, "kinematic viscosity %s is above max_viscosity %s (the default cap): give a max_viscosity "
		"of at least %s", nu, cap, nu);
}
