// interaction_class.h — the interaction classes: one per bsInteractionType (step.h), each in its own
// file src/step/interaction_NAME.c defining one `const bsInteractionClass bs_NAMEInteraction`, put in
// the table by one line of BS_INTERACTION_LIST below. interaction.c holds the table, the public
// functions of step.h that ask it (the names, the defaults, the validity, the reach, the substep plan)
// and what the pair kinds share: the pair phase (the neighbour grid, the gather of every particle's
// pairs in a fixed order, the tangential springs, the wake lists), which a pair kind calls from its
// run with its pair model. A kind with a phase of its own (several passes over the neighbour grid, a
// solver's iterations) gives its own run instead and shares nothing but the table.
#pragma once

#include "world_internal.h"

typedef struct bsInteractionClass
{
	const char* name;  // its config name, bsInteractionName
	// Sets the kind's settings in def to their defaults, on bsDefaultInteractionDef's def (NULL: none
	// of its own).
	void (*setDefaults)(bsInteractionDef* def);
	// The settings the kind uses are in range (NULL: it uses none); bsWorld_Step refuses a def for
	// which they are not. Settings it does not use are not checked.
	bool (*isValid)(const bsInteractionDef* def);
	// The reach of a pair as a multiple of r_i + r_j, >= 1 (NULL: 1), bsInteractionDef_Reach.
	double (*reach)(const bsInteractionDef* def);
	// The substep rule (step.h: bsSubstepPlan). The shortest contact or oscillation period of any
	// pair at the smallest free radius, seconds (NULL: none, INFINITY); a substep is at most
	// period / BS_SUBSTEPS_PER_PERIOD, and a settling contact wakes no sleeper (the pair phase).
	double (*period)(const bsInteractionDef* def, double smallestRadius);
	// The fewest substeps the kind's own rules ask for a step of dt, beyond the shared travel and
	// period bounds (NULL: none): granular's explicit tangential damping; a fluid's CFL bound from
	// plan->speed and plan->radius (the fastest free particle over its radius).
	double (*substeps)(const bsInteractionDef* def, double dt, double smallestRadius, const bsSubstepPlan* plan);
	// The whole interaction phase of a substep of h seconds (NULL: the kind has none, the step skips
	// it). It sets every free particle's velocity from the state before the call, the same for any
	// thread count; stuck particles (with the stuck collider, world.h) and sleeping ones (with rest
	// on) are fixed neighbours, not integrated. A free particle that touches a sleeper approaching it
	// faster than wakeSpeed (and than |g| x the shortest period, which a particle settling on it stays
	// below) goes on its worker's wake list (sleep.h: bsSleep_Wake wakes it after the phase; an out of
	// memory is the worker's error). Adds to the workers' statistics. bs_errOutOfMemory or
	// bs_errTooLarge.
	bsResult (*run)(bsWorld* world, const bsStepDef* def, double h, double wakeSpeed, bsParticles* particles);
	// The phase runs after the forces phase rather than before it: a pressure solve (the fluid)
	// corrects the velocity the forces made, the one the move phase then uses.
	bool afterForces;
	// The kind's substeps rule bounds the particles' travel itself (the fluid's CFL number), instead
	// of the shared BS_SUBSTEP_TRAVEL of a radius.
	bool ownTravel;
	// The substeps the world's state asks for a step of dt, given the count planned from the particles
	// (NULL: that count): the fluid asks for as many as its last step's fastest particle needs by its
	// CFL number (the pressure can speed particles up within a step far beyond gravity), times a
	// factor that grows while its solves stop at their iteration limit (interaction_fluid.c).
	double (*worldSubsteps)(const bsWorld* world, const bsInteractionDef* def, double dt, double planned);
	// The volume of a particle of radius r as the kind's model has it (NULL: a sphere's, 4/3 pi r^3):
	// with the density, a particle's mass in the exchange with the bodies it pushes (two-way coupling).
	double (*volume)(double radius);
	// The kind reads bsStepDef's table of species (the pair kinds); the others ignore it.
	bool speciesTable;
} bsInteractionClass;

// The class of each bsInteractionType (its value first): a new interaction is its type, its file and
// one line here. Each line declares the class and puts it in interaction.c's table at its type.
#define BS_INTERACTION_LIST(X)                              \
	X(bs_interactionNone, bs_noInteraction)                 \
	X(bs_interactionRepulsion, bs_repulsionInteraction)     \
	X(bs_interactionGranular, bs_granularInteraction)     \
	X(bs_interactionFluid, bs_fluidInteraction)

#define BS_INTERACTION_DECLARE(type, name) extern const bsInteractionClass name;
BS_INTERACTION_LIST(BS_INTERACTION_DECLARE)
#undef BS_INTERACTION_DECLARE

// The class of def's type; NULL for a type out of range (bsInteractionDef_IsValid is false for it).
const bsInteractionClass* bsInteractionClass_Of(bsInteractionType type);

// The mass of particles' particle i: its species' density (step.h: bsStepDef.speciesDensity), else the
// interaction's, times the kind's volume (bsInteractionClass.volume).
double bsStep_ParticleMass(const bsStepDef* def, const bsParticles* particles, size_t i);

// def's table of species (speciesPairs, speciesDensity) is in range: 1 .. 255 species, each rule's
// restitution in (0, 1], friction and cohesion >= 0, cohesion range 1 .. 1e6, each density > 0 (NaN
// nowhere). True without a table.
bool bsStep_SpeciesAreValid(const bsStepDef* def);

// --- for the pair classes (repulsion, granular): the shared pair phase ---

// What a pair needs, worked out once per substep: the shared terms (cohesion, viscosity) by the pair
// phase, the kind's own by its model. The gather reads the flags, so no pair pays a call.
typedef struct bsPairModel
{
	bool repulsion, granular, cohesion, viscosity;
	double reach;        // x (r_i + r_j)
	double strength, range;
	double K, C;         // granular, from a contact time
	double stiffness;    // granular, k / (density 4/3 pi): K = stiffness / (r_i^3 r_j^3 / (r_i^3 + r_j^3))
	double beta2;        // 2 beta, with a stiffness
	double friction, gamma;
	double tangential;   // k_t / K; > 0: tangential springs with contact history
	bool projectSpring;  // spring_turn "project": the spring only projected into the tangent plane (step.h)
	bool hertz;          // Hertz-Mindlin (step.h), per unit density 4/3 pi: E*, G*, and
	double hertzYoungs, hertzShear, hertzDamping;  // 2 sqrt(5/6) beta
	bool rotation;       // the particles spin: the contact point's velocity, torques
	double rolling;      // mu_r, rolling resistance, with rotation
	bool epsd;           // the rolling spring (epsd2) rather than cdt's torque
	double bond, sinteringTime;  // sintered bonds (step.h), with tangential springs; 0: none
	double rollingFresh; // epsd2 with bonds: a fresh contact's mu_r, aging to rolling as its bond (step.h)
	double frictionFresh; // with bonds: a fresh contact's mu, aging to friction as its bond (step.h)
	double cohesionAcc, cohesionRange;
	double blend;        // viscosity: 1 - exp(-viscosity h)
	double h;
	bool contactOnly;    // granular and no other term: a pair beyond a substep's travel adds nothing
} bsPairModel;

// A pair kind, as the pair phase needs it.
typedef struct bsPairKind
{
	// Sets the kind's own terms of *model (zeroed) for a substep of h, at the smallest free radius.
	void (*model)(const bsInteractionDef* def, double h, double smallestRadius, bsPairModel* model);
	// The kind's spring acts from a substep's approach before contact (granular): the grid keeps it.
	bool approach;
	// Tangential springs with contact history, the world's (NULL: none).
	bool (*springs)(const bsInteractionDef* def);
} bsPairKind;

// The pair phase (bsInteractionClass.run) of a pair kind.
bsResult bsPairInteraction_Run(const bsPairKind* kind, bsWorld* world, const bsStepDef* def, double h,
	double wakeSpeed, bsParticles* particles);

// The settings every pair kind uses (density, cohesion, cohesion_range, viscosity) are in range.
bool bsPairInteraction_IsValid(const bsInteractionDef* def);

// The pair's reach: the kind's own (>= 1), or cohesion's range when farther.
double bsPairInteraction_Reach(const bsInteractionDef* def, double own);

// The shortest period at the smallest radius r: the kind's own period (INFINITY: none) and its largest
// relative stiffness per unit distance (0: none), with cohesion's.
double bsPairInteraction_Period(const bsInteractionDef* def, double r, double period, double stiff);

// lo <= x <= hi: false for NaN and, every hi being finite, for infinity. For the classes' isValid.
static inline bool bsWithin(double x, double lo, double hi)
{
	return x >= lo && x <= hi;
}
