// field_config.c — reads the config's `field` block (field_config.h) into bsConfig.field.
#include "field_config.h"
#include "core.h"

#include "config.h"
#include "config_read.h"

#include <limits.h>
#include <string.h>

// field.build: the settings of `blobsim grid build` (docs/dngrid.md), read into a bsDistanceGridDef
// filled with its defaults first.
static const bsSchemaKey bsFieldBuildKeys[] = {
	BS_NUMBER_IN("cell", bsDistanceGridDef, cellSize, &bsPositive),
	BS_INT_IN("resolution", bsDistanceGridDef, resolution, 3, 4096),
	BS_INT_IN("margin", bsDistanceGridDef, margin, 0, 1024),
	BS_INT_IN("band", bsDistanceGridDef, band, 1, 64),
	BS_KEY("method", BS_VALUE),
	BS_INT_IN("blur_radius", bsDistanceGridDef, blurRadius, 1, 8),
	BS_INT_IN("blur_rounds", bsDistanceGridDef, blurRounds, 0, 64)};
static const bsSchema bsFieldBuildSchema = BS_OBJECT(bsFieldBuildKeys);

// The effects, each an object of the paper's parameters, every one required when the effect is given.
static const bsRange bsFieldAnyNumber = {-1e300, 1e300, false, "a number"};
static const bsSchemaKey bsSpringKeys[] = {
	BS_REQUIRED_NUMBER("strength", bsFieldDef, spring, &bsPositive),
	BS_REQUIRED_NUMBER("distance", bsFieldDef, springDistance, &bsPositive)};
static const bsSchema bsSpringSchema = BS_OBJECT(bsSpringKeys);
static const bsSchemaKey bsImpactKeys[] = {
	BS_REQUIRED_NUMBER("beta", bsFieldDef, restitution, &bsUnit),
	BS_REQUIRED_NUMBER("threshold", bsFieldDef, threshold, &bsNonNegative)};
static const bsSchema bsImpactSchema = BS_OBJECT(bsImpactKeys);
static const bsSchemaKey bsFieldDragKeys[] = {
	BS_REQUIRED_NUMBER("delta", bsFieldDef, drag, &bsPositive),
	BS_REQUIRED_NUMBER("theta", bsFieldDef, contactDistance, &bsPositive)};
static const bsSchema bsFieldDragSchema = BS_OBJECT(bsFieldDragKeys);
static const bsSchemaKey bsFlowKeys[] = {
	BS_REQUIRED_NUMBER("rho_in", bsFieldDef, flowIn, &bsFieldAnyNumber),
	BS_REQUIRED_NUMBER("rho_out", bsFieldDef, flowOut, &bsFieldAnyNumber),
	BS_REQUIRED_NUMBER("distance", bsFieldDef, flowDistance, &bsPositive)};
static const bsSchema bsFlowSchema = BS_OBJECT(bsFlowKeys);

// field.compress: the compressed tree's settings (field.h), read into a bsGridTreeDef filled with
// its defaults first; max_angle is in degrees, the def's in radians (bsReadFieldCompress converts).
static const bsRange bsFieldAngle = {0.0, 180.0, false, "a number 0 .. 180"};
static const bsSchemaKey bsCompressKeys[] = {
	BS_INT_IN("block", bsGridTreeDef, blockSize, 2, 16),
	BS_NUMBER_IN("tolerance", bsGridTreeDef, distanceTolerance, &bsNonNegative),
	BS_NUMBER_IN("max_angle", bsGridTreeDef, maxAngle, &bsFieldAngle),
	BS_NUMBER_IN("far", bsGridTreeDef, farDistance, &bsNonNegative)};
static const bsSchema bsCompressSchema = BS_OBJECT(bsCompressKeys);

static const bsSchemaKey bsFieldKeys[] = {BS_KEY("grid", BS_VALUE), BS_KEY("build", &bsFieldBuildSchema),
	BS_KEY("compress", &bsCompressSchema), BS_KEY("lookup", BS_VALUE), BS_KEY("spring", &bsSpringSchema),
	BS_KEY("impact", &bsImpactSchema), BS_KEY("drag", &bsFieldDragSchema), BS_KEY("surface_flow", &bsFlowSchema),
	BS_KEY("sweep", BS_VALUE)};
const bsSchema bsFieldSchema = BS_OBJECT(bsFieldKeys);

// One effect's object, when given, into *def.
static bool bsReadEffect(bsCtx* c, const cJSON* field, const char* key, const bsSchema* schema, bsFieldDef* def)
{
	if (bsMember(field, key) == NULL)
	{
		return true;
	}
	return bsReadSection(c, field, key, schema, def);
}

static bool bsReadFieldBuild(bsCtx* c, const cJSON* field, bsDistanceGridDef* build)
{
	const cJSON* o;
	if (!bsReadObject(c, field, "build", &bsFieldBuildSchema, &o))
	{
		return false;
	}
	size_t mark = bsPushKey(c, "build");
	const char* methods[bs_gridMethodCount];
	for (int i = 0; i < bs_gridMethodCount; ++i)
	{
		methods[i] = bsGridMethodName((bsGridMethod)i);
	}
	int method = 0;
	if (!bsReadChoice(c, o, "method", false, methods, bs_gridMethodCount, (int)build->method, &method) ||
		!bsReadFields(c, o, &bsFieldBuildSchema, build))
	{
		return false;
	}
	build->method = (bsGridMethod)method;
	if (bsMember(o, "cell") != NULL && bsMember(o, "resolution") != NULL)
	{
		bsPushKey(c, "resolution");
		return bsFail(c, "give cell or resolution, not both");
	}
	if (build->cellSize == 0.0 && build->resolution <= 2 * build->margin)
	{
		bsPushKey(c, bsMember(o, "resolution") != NULL ? "resolution" : "margin");
		return bsFail(c, "the resolution (%d) must be more than twice the margin (%d)", build->resolution,
			build->margin);
	}
	bsPop(c, mark);
	return true;
}

static bool bsReadFieldCompress(bsCtx* c, const cJSON* field, bsFieldConfig* f)
{
	const cJSON* o;
	if (!bsReadObject(c, field, "compress", &bsCompressSchema, &o))
	{
		return false;
	}
	f->compress = o != NULL;
	if (o == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, "compress");
	if (!bsReadFields(c, o, &bsCompressSchema, &f->compressDef))
	{
		return false;
	}
	if (bsMember(o, "max_angle") != NULL)
	{
		f->compressDef.maxAngle *= BS_PI / 180.0;
	}
	int b = f->compressDef.blockSize;
	if ((b & (b - 1)) != 0)
	{
		bsPushKey(c, "block");
		return bsFail(c, "expected 2, 4, 8 or 16 cells, got %d", b);
	}
	bsPop(c, mark);
	return true;
}

bool bsReadFieldConfig(bsCtx* c, const cJSON* root, bsFieldConfig* f)
{
	f->build = bsDefaultDistanceGridDef();
	f->def = bsDefaultFieldDef();
	f->compressDef = bsDefaultGridTreeDef();
	f->sweep = true;
	const cJSON* field;
	if (!bsReadObject(c, root, "field", &bsFieldSchema, &field))
	{
		return false;
	}
	if (field == NULL)
	{
		return true;
	}
	f->enabled = true;
	size_t mark = bsPushKey(c, "field");
	bool hasGrid = bsMember(field, "grid") != NULL;
	bool hasBuild = bsMember(field, "build") != NULL;
	if (hasGrid == hasBuild)
	{
		if (hasGrid)
		{
			bsPushKey(c, "build");
		}
		return bsFail(c, hasGrid ? "give grid or build, not both"
			: "needs a grid (\"grid\": \"file.dng\") or a grid built from the meshes (\"build\": {})");
	}
	if (hasGrid && !bsReadFile(c, field, "grid", true, NULL, &f->grid))
	{
		return false;
	}
	if (hasBuild && !bsReadFieldBuild(c, field, &f->build))
	{
		return false;
	}
	static const char* const lookups[2] = {"nearest", "trilinear"};
	int lookup = 0;
	if (!bsReadFieldCompress(c, field, f) || !bsReadChoice(c, field, "lookup", false, lookups, 2, 0, &lookup) ||
		!bsReadBool(c, field, "sweep", true, &f->sweep) ||
		!bsReadEffect(c, field, "spring", &bsSpringSchema, &f->def) ||
		!bsReadEffect(c, field, "impact", &bsImpactSchema, &f->def) ||
		!bsReadEffect(c, field, "drag", &bsFieldDragSchema, &f->def) ||
		!bsReadEffect(c, field, "surface_flow", &bsFlowSchema, &f->def))
	{
		return false;
	}
	f->def.trilinear = lookup == 1;
	bsPop(c, mark);
	return true;
}

// environment.bodies[i].field: the grid the body carries (field.h's bsGridPose), built around its rest
// mesh with the settings of field.build; the rules are the `field` block's.
static const bsSchemaKey bsBodyFieldKeys[] = {BS_KEY("build", &bsFieldBuildSchema)};
const bsSchema bsBodyFieldSchema = BS_OBJECT(bsBodyFieldKeys);

bool bsReadBodyField(bsCtx* c, const cJSON* body, bool* has, bsDistanceGridDef* build)
{
	*build = bsDefaultDistanceGridDef();
	const cJSON* field;
	if (!bsReadObject(c, body, "field", &bsBodyFieldSchema, &field))
	{
		return false;
	}
	*has = field != NULL;
	if (field == NULL)
	{
		return true;
	}
	size_t mark = bsPushKey(c, "field");
	if (!bsReadFieldBuild(c, field, build))
	{
		return false;
	}
	bsPop(c, mark);
	return true;
}
