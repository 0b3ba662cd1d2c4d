// force_field.c — the distance/normal field (field.h, bsStepDef.fieldGrid/fieldTree/field): spring,
// impact, drag and surface flow from the grid.
#include "forces.h"

static bool bsFieldForce_Active(const bsForceContext* c)
{
	return c->def->fieldGrid != NULL || c->def->fieldTree != NULL;
}

// Reads only each particle's own position and velocity and the grid: the same for any thread count.
static void bsFieldForce_Adjust(const bsForceContext* c, bsParticles* p, size_t begin, size_t end)
{
	bsField_ApplyRange(c->def->fieldGrid, c->def->fieldTree, &c->def->field, c->h, p->position, p->velocity, p->state,
		begin, end);
}

static void bsFieldForce_SetDefaults(bsStepDef* def)
{
	def->fieldGrid = NULL;
	def->field = bsDefaultFieldDef();
}

static bool bsFieldForce_IsValid(const bsStepDef* def)
{
	return bsFieldDef_IsValid(&def->field);
}

const bsForceClass bs_fieldForce = {
	.name = "field",
	.active = bsFieldForce_Active,
	.adjust = bsFieldForce_Adjust,
	.setDefaults = bsFieldForce_SetDefaults,
	.isValid = bsFieldForce_IsValid,
};
