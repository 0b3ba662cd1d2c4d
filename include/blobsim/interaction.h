// interaction.h — forces between particles (the interaction phase of a step, step.h).
//
// Every free particle i gathers the forces of the free particles j within reach of it, read from the
// positions and velocities before the substep (a copy in the neighbour grid, neighbour_grid.h), in a
// fixed order (the grid's cells, then slot order), and sets its own velocity only: the outcome is
// byte-identical for any thread count. Escaped particles take no part. Sleeping particles (with rest
// on, step.h) and stuck ones (only with the stuck collider, world.h: otherwise they are no collider
// and take no part) are fixed neighbours: at rest and of infinite mass, so a free particle takes the
// whole of a pair's relative acceleration, and never integrated; a free particle touching a sleeper
// faster than the wake speed and than |g| x the shortest period (a particle settling onto it under
// gravity approaches at up to about |g| t_c / pi) wakes it after the phase (step.h).
//
// A pair's force is written as the relative acceleration a it gives the pair; particle i takes the
// share m_j / (m_i + m_j) of it (m = density 4/3 pi r^3), so the pair's momentum is conserved and
// mixed radii work. Along the unit vector n from i to j, with distance d, overlap delta = r_i + r_j - d
// and normal approach speed -v_n (v_n = (v_j - v_i) . n):
//   repulsion  a = strength (1 - d / R)^2 pushing apart, for d < R = range (r_i + r_j): Karabassi's
//              spherical repulsive force field;
//   granular   for delta > 0, a = K delta - C v_n pushing apart (a linear spring-dashpot), with
//              K = (pi^2 + ln^2 e) / t_c^2 and C = -2 ln e / t_c for a contact time t_c: a head-on
//              contact lasts t_c and keeps the fraction e (restitution) of the approach speed,
//              whatever the masses. Given a stiffness k instead, K = k / m_eff (m_eff = m_i m_j /
//              (m_i + m_j)) and C = 2 beta sqrt(K), beta = -ln e / sqrt(pi^2 + ln^2 e). The spring
//              takes the overlap averaged over the pair's normal travel one substep either way
//              (delta +- h |v_n|): delta itself once a substep's travel into contact, it starts a
//              substep's travel before touching, so that no elastic contact gains energy (the kink
//              of max(delta, 0) under symplectic Euler gave +-3.2e-5 a contact; now -2e-6 to -4e-6).
//              Tangentially, without a tangential stiffness, friction along the relative tangential
//              velocity v_t: min(gamma |v_t|, mu max(a, 0)), gamma = tangential_damping / t_c
//              (Coulomb's bound on a viscous damping); a pile with it creeps at about g / gamma.
//              With a tangential stiffness s (Cundall-Strack), each particle keeps for each of its
//              first BS_CONTACT_SPRINGS (8) contacts the tangential displacement xi (grown by h v_t
//              each substep, turned into the tangent plane): friction k_t xi + gamma v_t, k_t = s K,
//              at most mu max(a, 0) (sliding: xi is cut back to the bound). It holds a particle at
//              rest on a slope below atan mu: static friction, a true angle of repose. 128 bytes a
//              particle (world_internal.h). A contact beyond a particle's 8 gets the viscous
//              friction (on that side only: such a pair keeps its momentum only to the difference).
//              Particles have no spin (they cannot roll).
//   cohesion   (with either) a = cohesion pulling together for d <= r_i + r_j, falling linearly to
//              0 at d = cohesion_range (r_i + r_j);
//   viscosity  (with either) the velocity relaxes towards the mass-weighted mean of the neighbours'
//              within reach (weight 1 - d / R): v += (1 - exp(-viscosity h)) (mean - v), XSPH-like.
#pragma once

#include "blobsim/particles.h"
#include "blobsim/vec3.h"

typedef enum bsInteractionType
{
	bs_interactionNone = 0,   // particles ignore each other (the paper's behaviour)
	bs_interactionRepulsion,  // spherical repulsive force fields
	bs_interactionGranular,   // soft-sphere contacts with friction
	bs_interactionCount
} bsInteractionType;

const char* bsInteractionName(bsInteractionType type);
bool bsParseInteraction(const char* name, bsInteractionType* type);

// Every setting of the interaction; bsDefaultInteractionDef() gives each its default (in brackets).
typedef struct bsInteractionDef
{
	bsInteractionType type;    // [none]
	double density;            // kg/m^3, > 0: m = density 4/3 pi r^3 [1000]
	double strength;           // repulsion: relative acceleration at d = 0, m/s^2, > 0 [100]
	double range;              // repulsion: field radius / particle radius, >= 1 [1.5]
	double restitution;        // granular: e, 0 < e <= 1 [0.5]
	double contactTime;        // granular: t_c, seconds, > 0; 0: from stiffness [0.005]
	double stiffness;          // granular: k, N/m, > 0, used when contactTime is 0 [0]
	double friction;           // granular: Coulomb mu, >= 0 [0.5]
	double tangentialDamping;  // granular: gamma t_c, 0..10 [1]
	double tangentialStiffness; // granular: k_t / K, 0..1; 0: no tangential spring [0]
	double cohesion;           // relative acceleration, m/s^2, >= 0 [0]
	double cohesionRange;      // cohesion_range, >= 1 [1.25]
	double viscosity;          // per second, >= 0 [0]
} bsInteractionDef;

bsInteractionDef bsDefaultInteractionDef(void);

// False for a setting out of range.
bool bsInteractionDef_IsValid(const bsInteractionDef* def);

// The reach of a pair as a multiple of r_i + r_j: the largest range of the active forces (>= 1).
double bsInteractionDef_Reach(const bsInteractionDef* def);

// The substep rule, for a step of dt seconds under gravity g of the free particles of a set:
// h = dt / substeps must be at most (50 substeps a contact: for an elastic head-on pair, 20 gained
// 2.6e-4 to 4.5e-4 of the energy a bounce in every phase tried, 50 changed it by under 3e-5 either way)
//   period / 50    period: the shortest contact or oscillation period of any pair (granular: t_c,
//                  or from the stiffness and the two lightest masses; repulsion and cohesion: 2 pi /
//                  sqrt of their largest stiffness per unit relative mass, at the smallest radius);
//   1 / gamma      the tangential damping rate (integrated explicitly);
//   0.1 r / s      for every free particle, s = |v| + |g| dt: none moves more than a tenth of its
//                  radius in a substep.
// With interaction none there is no bound: the plan is 1 substep.
typedef struct bsSubstepPlan
{
	double substeps;      // the smallest count that keeps every bound (>= 1; may be huge)
	double period;        // the shortest period, seconds (INFINITY: none)
	double speed;         // |v| + |g| dt of the particle with the largest one over its radius, m/s
	double radius;        // that particle's radius
} bsSubstepPlan;

#define BS_SUBSTEPS_PER_PERIOD 50.0
#define BS_SUBSTEP_TRAVEL 0.1

void bsInteraction_PlanSubsteps(const bsInteractionDef* def, double dt, bsVec3 gravity,
	const bsParticles* particles, bsSubstepPlan* plan);
