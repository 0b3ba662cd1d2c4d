// step.h — one time step of every particle, a fixed sequence of phases run on the world's pool:
//
//     emit       the particles born in [t, t + dt) are appended (in emitter order, one random stream;
//                the trails last, once the substeps are planned, from their sources' paths
//                under gravity from t: emitter.h, bsTrail)
//     per substep (dt / substeps, substeps given or planned by the interaction's rule below):
//       interact the free particles' velocities from the forces between them (below), read
//                from a copy of the state before the substep (only with an interaction)
//       forces   each free particle's velocity from the forces (forces.c: gravity, air drag, the
//                radial force, then the distance/normal field's rules: the world's grid, then the
//                bodies' own), read from the state before the substep only
//       move     each free particle sweeps from x to x + v dt against every collider, responds to
//                each contact (stick, slide, bounce) and goes on with the rest of the substep; with
//                the stuck collider (world.h), stuck and sleeping particles are colliders, gathered
//                into its grid before the phase, and the sleeping ones touched wake after it
//     statistics the workers' counts summed in worker order (integers: any order gives the same)
//     sleep      with sleepSteps > 0, a free particle calm for that many steps in a row falls asleep
//     expire     particles whose lifetime is up by t + dt leave (state escaped); t += dt
//
// Every phase writes only the slots of the particles it owns, and every particle's result depends
// only on the state before the phase, so the outcome is byte-identical for any thread count.
//
// Integration is symplectic Euler: v += a dt (a the sum of the forces), then linear air drag
// v *= exp(-drag dt) (exact for dv/dt = -drag v), then the sweep. With interaction none (the
// default) particles ignore each other, as in the paper; the interaction adds its velocity change
// before the forces.
#pragma once

#include "blobsim/field.h"
#include "blobsim/fluid.h"
#include "blobsim/particles.h"
#include "blobsim/track.h"
#include "blobsim/vec3.h"
#include "blobsim/world.h"

#include <stdbool.h>

// --- Forces between particles (interaction.c, a class per kind: interaction_NAME.c) ---

// The interaction phase of a step. Every free particle i gathers the forces of the free particles j
// within reach of it, read from the positions and velocities before the substep (a copy in a
// neighbour grid), in a fixed order (the grid's cells, then slot order), and sets its own velocity
// only: the outcome is byte-identical for any thread count. Escaped particles take no part.
// Sleeping particles (with rest on, below) and stuck ones (only with the stuck collider, world.h:
// otherwise they are no collider and take no part) are fixed neighbours: at rest and of infinite
// mass, so a free particle takes the whole of a pair's relative acceleration, and never integrated;
// a free particle touching a sleeper faster than the wake speed and than |g| x the shortest period
// (a particle settling onto it under gravity approaches at up to about |g| t_c / pi) wakes it after
// the phase (the step, below).
//
// A pair's force is written as the relative acceleration a it gives the pair; particle i takes the
// share m_j / (m_i + m_j) of it (m = density 4/3 pi r^3, the density its species' with
// bsStepDef.speciesDensity), so the pair's momentum is conserved and mixed radii and densities work. Along the unit vector n from i to j, with distance d, overlap delta = r_i + r_j - d
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
//              each substep, turned into the tangent plane: spring_turn, bsSpringTurn below): friction
//              k_t xi + gamma v_t, k_t = s K, at most mu max(a, 0) (sliding: xi is cut back to the
//              bound). It holds a particle at
//              rest on a slope below atan mu: static friction, a true angle of repose. 128 bytes a
//              particle (world_internal.h). A contact beyond a particle's 8 gets the viscous
//              friction (on that side only: such a pair keeps its momentum only to the difference).
//              Without rotation particles have no spin (they cannot roll).
//              contact_model hertz (Hertz-Mindlin, as LIGGGHTS's `model hertz` with its default
//              tangential history): with E* = E / (2 (1 - nu^2)), G* = E / (4 (2 - nu)(1 + nu)),
//              R = r_i r_j / (r_i + r_j) and s = sqrt(R delta), the force is k_n delta + gamma_n v_n
//              apart with k_n = 4/3 E* s, gamma_n = 2 sqrt(5/6) beta sqrt(2 E* s m_eff); the
//              tangential spring k_t = 8 G* s and damping gamma_t = 2 sqrt(5/6) beta sqrt(k_t m_eff),
//              always with history (tangential_stiffness and tangential_damping are not used).
//   rotation   (granular, rotation on) every particle has an angular velocity (particles.h: spin):
//              the contact point's velocity includes omega x r, and the tangential force F_t at
//              c_i n makes the torque c_i n x F_t (c = r - delta / 2, LIGGGHTS's contact point;
//              I = 2/5 m r^2, a solid sphere). Rolling resistance (rolling_friction mu_r > 0), with
//              w the relative angular velocity omega_i - omega_j without its component along n and
//              R as above: rolling_model cdt (LIGGGHTS's constant directional torque) adds the
//              torque -mu_r F_n R w / |w| (F_n the elastic normal force, k_n delta), cut to the one
//              that stops w within the substep where it would reverse it (LIGGGHTS's explicit one
//              flips its sign every step around w = 0 instead); rolling_model epsd2 (LIGGGHTS's,
//              Ai et al. 2011 without the dashpot) keeps a rolling torque M per contact beside its
//              tangential spring, M += h k_t R^2 w, |M| <= mu_r |F_n| R (F_n the whole normal
//              force), the torque on i -M. Walls (the move phase's response) rotate too: below,
//              bsStepDef.friction.
//              Sintered bonds (bond_strength b > 0, sintering_time tau; snow): each contact with a
//              tangential spring keeps its age t (seconds in contact, restarted when it ends) and
//              pulls the pair together by b (1 - exp(-t / tau)) while in contact, so a fresh contact
//              slides at mu and an aged one holds up to mu (normal + b): ice grains in contact grow a
//              neck, fast at first then slower (snow's strength grows as t^0.18: van Herwijnen and
//              Miller 2013, J. Glaciol. 59(214); the exponential is a bounded law of that shape).
//              Bonds to walls (wall_bond w > 0, the same tau; snow on a roof): each particle keeps
//              the age t of its rest on the static walls (meshes and planes): it grows by the substep
//              in which a wall's response leaves the particle at rest along it and starts again when
//              the particle slides or leaves every wall, so a sliding grain never bonds. The wall's
//              friction bound (bsStepDef.friction) is then friction x (J_n + h w (1 - exp(-t / tau)))
//              for the normal impulse J_n: a grain at rest grips the roof, one that slides does not.
//   cohesion   (with either) a = cohesion pulling together for d <= r_i + r_j, falling linearly to
//              0 at d = cohesion_range (r_i + r_j);
//   viscosity  (with either) the velocity relaxes towards the mass-weighted mean of the neighbours'
//              within reach (weight 1 - d / R): v += (1 - exp(-viscosity h)) (mean - v), XSPH-like.

typedef enum bsInteractionType
{
	bs_interactionNone = 0,   // particles ignore each other (the paper's behaviour)
	bs_interactionRepulsion,  // spherical repulsive force fields
	bs_interactionGranular,   // soft-sphere contacts with friction
	bs_interactionFluid,      // a particle fluid (SPH: pressure, viscosity, yield stress, surface tension)
	bs_interactionCount
} bsInteractionType;

const char* bsInteractionName(bsInteractionType type);
bool bsParseInteraction(const char* name, bsInteractionType* type);


// The granular contact law: the linear spring-dashpot (from a contact time or a stiffness, LIGGGHTS's
// `model hooke` family) or Hertz-Mindlin (from Young's modulus and Poisson's ratio, `model hertz`).
typedef enum bsContactModel
{
	bs_contactHooke = 0,
	bs_contactHertz,
	bs_contactModelCount
} bsContactModel;

const char* bsContactModelName(bsContactModel model);
bool bsParseContactModel(const char* name, bsContactModel* model);

// The rolling resistance with rotation: the constant directional torque (LIGGGHTS's
// `rolling_friction cdt`; Zhou et al. 1999's model) or the elastic-plastic rolling spring without
// dashpot (LIGGGHTS's `rolling_friction epsd2`; Ai et al. 2011's type C, its damping left out), which
// needs the tangential spring (a contact history).
typedef enum bsRollingModel
{
	bs_rollingCdt = 0,
	bs_rollingEpsd2,
	bs_rollingModelCount
} bsRollingModel;

const char* bsRollingModelName(bsRollingModel model);
bool bsParseRollingModel(const char* name, bsRollingModel* model);

// How a contact's stored tangential spring xi is turned into the tangent plane of this substep's
// normal n before it grows (the pair has turned since the last substep): rescale projects it,
// xi - (xi . n) n, and scales that back to |xi|, so a pair turning rigidly (two grains stuck by
// friction turning together as one body) keeps its spring's length and force; project only projects
// it (LIGGGHTS's tangential_model_history and LAMMPS's pair gran/hooke/history), which loses the part
// of xi along the new n: under a rigid turn by phi a substep a spring in the plane of the turn keeps
// cos phi of its length each substep (one along the axis of the turn is kept). The two agree to
// second order in the turn a substep; project saves two square roots and a division a touching pair.
typedef enum bsSpringTurn
{
	bs_springTurnRescale = 0,
	bs_springTurnProject,
	bs_springTurnCount
} bsSpringTurn;

// The config's name of a turn ("rescale", "project"; "unknown" out of range).
const char* bsSpringTurnName(bsSpringTurn turn);

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
	bsSpringTurn springTurn;   // granular, with the tangential spring: its turn into the tangent plane [rescale]
	bsContactModel contactModel; // granular: the normal and tangential law [hooke]
	double youngsModulus;      // granular, hertz: E, Pa, > 0 [5e6]
	double poissonRatio;       // granular, hertz: nu, 0..0.5 [0.3]
	bool rotation;             // granular: particles spin (above) [false]
	double rollingFriction;    // granular, with rotation: mu_r, >= 0 [0]
	bsRollingModel rollingModel; // granular, with rotation [cdt]
	double bondStrength;       // granular: sintered bonds' largest pull, m/s^2, >= 0; needs the tangential spring [0]
	double sinteringTime;      // granular: the bonds' growth time tau, seconds, > 0 [1]
	double wallBond;           // granular: bonds to walls' largest pull, m/s^2, >= 0 (above) [0]
	double rollingFresh;       // granular, epsd2 with bonds: mu_r of a fresh contact, growing to rollingFriction
	                           // as its bond grows, mu_r + (fresh - mu_r) exp(-t / tau); < 0: rollingFriction [-1]
	double frictionFresh;      // granular with bonds: mu of a fresh contact, growing to friction as its bond
	                           // grows, mu + (fresh - mu) exp(-t / tau); < 0: friction throughout [-1]
	double cohesion;           // relative acceleration, m/s^2, >= 0 [0]
	double cohesionRange;      // cohesion_range, >= 1 [1.25]
	double viscosity;          // per second, >= 0 [0]
	bsFluidDef fluid;          // fluid: its settings (density is the rest density rho0)
	double skin;               // repulsion, granular: the neighbour lists' skin, x the largest radius, 0..10 [0.3]
} bsInteractionDef;

bsInteractionDef bsDefaultInteractionDef(void);

// False for a type out of range or a setting its kind uses out of range (those of other kinds are not
// checked: none uses none).
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

struct bsStepDef;

// The plan of a step of def: bsInteraction_PlanSubsteps of its interaction, with a pair kind's table
// of species (bsStepDef.speciesPairs) the shortest period of any interacting rule's settings at the
// lightest species' density.
void bsStep_PlanSubsteps(const struct bsStepDef* def, const bsParticles* particles, bsSubstepPlan* plan);

// --- Radial forces (radial.c) ---

// A radial force (an explosion, a point force generator): an acceleration along the line
// from a centre through the particle, outwards for a positive strength, inwards (an attractor) for a
// negative one, with a falloff with distance, a reach and a time window. Ilmonen, Takala & Laitinen's
// Figure 8 (WSCG 2006) has one: "a force generator that pushes particles away from the center of the
// explosion".
//
// The step applies them in its forces phase, each particle from its own position alone, so the
// outcome is the same for any thread count. It is an acceleration (units/s^2), like gravity: every
// particle feels the same push whatever its size.

typedef enum bsFalloff
{
	bs_falloffConstant = 0,  // |a| = strength within the radius
	bs_falloffLinear,        // |a| = strength (1 - r / radius): from strength at the centre to 0 at the radius
	bs_falloffInverseSquare, // |a| = strength / (1 + (r / softening)^2): strength at the centre, half at
	                         // the softening radius, then as strength softening^2 / r^2
	bs_falloffCount
} bsFalloff;

const char* bsFalloffName(bsFalloff falloff);

typedef struct bsRadialDef
{
	bsVec3 center;       // scene units [0, 0, 0]
	double strength;     // the acceleration at the centre, units/s^2, any; 0: off [0]
	bsFalloff falloff;   // [constant]
	double radius;       // nothing acts beyond this distance from the centre, > 0, may be infinite
	                     // (linear: finite) [infinity]
	double softening;    // inverse square: the distance at which the push is half its strength, > 0 [1]
	double start;        // the window in which it acts: from `start` seconds, any [0] ...
	double duration;     // ... for `duration` seconds, > 0, may be infinite [infinity]
	// Keyframes (track.h), each read at the substep's middle; count 0: not keyed, center and strength
	// above hold [0]. Keyed, they replace center and strength: an attractor or repeller that moves
	// and swells or fades (strengthKeys holds the strength in x).
	bsTrack centerKeys;
	bsTrack strengthKeys;
	// A centre that follows a body: with follow, center is an offset in the body's own frame (its rest
	// shape's coordinates, whose origin is the body's origin, not its centre of mass), carried by the
	// body's pose and scale at each substep's start (bsBody_Pose: keyframed, deforming and dynamic
	// alike; a deformation does not move it), and centerKeys must be empty. body indexes the world's
	// bodies in the order they were added (a config's environment.bodies); a body the world does not
	// have: the force does not act. [follow false: a fixed or keyed centre; body 0]
	bool follow;
	int body;
} bsRadialDef;

// Off (strength 0), constant falloff, unlimited reach, acting from time 0 for ever.
bsRadialDef bsDefaultRadialDef(void);

// False for a setting out of range: center, strength, softening or start not finite, radius, softening
// or duration not > 0 (or NaN), a linear falloff with an infinite radius, an unknown falloff, keys with
// a count other than 0 that are not a valid track (bsTrack_IsValid), a follow with a negative body or
// with centerKeys.
// bsWorld_Step refuses such a bsStepDef.radial (bs_errInvalidArgument).
bool bsRadialDef_IsValid(const bsRadialDef* def);

// --- Wind (force_wind.c) ---

// Wind: a drag towards the air's velocity w(t), dv/dt = rate (w - v) (the drag of bsStepDef.drag,
// towards w instead of rest). Over a substep [t, t + h) the step solves it exactly for w held at
// w(t + h / 2): v <- w + exp(-rate h) (v - w), after gravity and the other forces; so in a uniform
// wind with gravity g a particle's terminal velocity is w + g h e / (1 - e), e = exp(-rate h), which
// is w + g / rate to first order in rate h (and w exactly without gravity).
//
// w(t) = k(t) (1 + strength n0(t / period)) + direction |k(t)| (n1, n2, n3)(t / period), with k the
// keyframed velocity (track.h) and n0 .. n3 four independent channels of seeded smooth value noise in
// [-1, 1] (noise.h: random values at whole multiples of the period, blended by the quintic fade):
// gusts that change the wind's strength by up to `strength` of it and turn it by up to about
// atan(sqrt(3) direction). The noise depends on the time and seed alone, so every particle feels the
// same wind and the run is byte-identical at any thread count.
typedef struct bsWindDef
{
	double rate;        // per second, >= 0; 0: no wind [0]
	bsTrack velocity;   // the air's velocity k(t), units/s [one key: 0, 0, 0]
	double strength;    // gusts: the relative change of the wind's strength, >= 0 [0]
	double direction;   // gusts: the sideways part, relative to |k|, >= 0 [0]
	double period;      // gusts: seconds between the noise's values, > 0 [1]
	uint64_t seed;      // gusts: the noise's seed (a config's `seed`) [1]
} bsWindDef;

// No wind (rate 0), no gusts, period 1, seed 1.
bsWindDef bsDefaultWindDef(void);

// False for a rate or gust setting out of range (above) or a bad track (bsTrack_IsValid).
bool bsWindDef_IsValid(const bsWindDef* def);

// The air's velocity w(t) (above).
bsVec3 bsWind_Velocity(const bsWindDef* def, double t);

// --- Turbulence (force_turbulence.c) ---

// Curl-noise turbulence (Bridson, Hourihan & Nordenstam 2007, "Curl-noise for procedural fluid flow"):
// a velocity field u = curl psi, the curl of a vector potential psi whose three components are
// independent seeded 3D gradient noises (noise.h). The curl of any smooth potential has no
// divergence, so the flow neither gathers particles into clumps nor empties regions: it stirs them.
// The derivatives are exact (the noise's analytic gradient), so u is divergence-free to rounding.
//
//   u(p, t) = amplitude / C curl_q psi(q, tau),  q = p / scale,  tau = speed t
//
// with C = 1.53, the root mean square of |curl_q psi|, so that amplitude is about the field's
// RMS speed. In time the potential blends the noise of slice k = floor(tau) into that of slice k + 1 by
// the quintic fade of tau - k: every 1 / speed seconds the flow has changed into an independent one,
// smoothly (speed 0: a still flow); at every instant it is a curl, so divergence-free.
//
// It acts as the wind does, as a drag towards the field: v <- u + exp(-rate h) (v - u), u read at the
// particle's position at the substep's start and the substep's middle. (Not as an acceleration: a
// force field would pump speed into particles without bound; the drag keeps their speeds near the
// field's, and with a high rate they follow its divergence-free streamlines.)
typedef struct bsTurbulenceDef
{
	double rate;       // per second, >= 0; 0: off [0]
	double amplitude;  // units/s, >= 0: about the field's RMS speed [1]
	double scale;      // scene units, > 0: the size of the eddies (the noise's lattice spacing) [1]
	double speed;      // per second, >= 0: how fast the flow changes (new flows per second) [1]
	uint64_t seed;     // the noise's seed (a config's `seed`) [1]
} bsTurbulenceDef;

#define BS_CURL_NOISE_RMS 1.53  // C above (measured over 20000 random points and times)

bsTurbulenceDef bsDefaultTurbulenceDef(void);

// False for a setting out of range (above, NaN included).
bool bsTurbulenceDef_IsValid(const bsTurbulenceDef* def);

// The field's velocity u at p and time t; when jacobian is not NULL also its exact derivatives,
// jacobian[i][j] = du_i / dp_j (from the noise's second derivatives), whose trace (the divergence)
// is 0 to rounding.
bsVec3 bsTurbulence_Velocity(const bsTurbulenceDef* def, bsVec3 p, double t, double jacobian[3][3]);

// --- Vortex (force_vortex.c) ---

// A vortex: air turning round an axis (through `center` along `axis`, right-handed: a positive
// circulation turns anticlockwise seen from the axis's tip). At distance r from the axis the air moves
// round it at the profile's speed v(r), for a circulation Gamma and core radius r_c:
//   Rankine     v = Gamma r / (2 pi r_c^2) within the core (a solid body's turn), Gamma / (2 pi r) beyond
//   Lamb-Oseen  v = Gamma / (2 pi r) (1 - exp(-r^2 / r_c^2)) (a viscous core: smooth, fastest at
//               1.12 r_c)
// and nothing on the axis. It acts as the wind does, a drag towards that velocity u (a particle that
// follows it closely, a high rate, is carried round at v(r)): v <- u + exp(-rate h) (v - u), u at the
// particle's position before the move. With pull != 0 it also draws particles towards the axis (away
// for a negative pull) with an acceleration pull s(r), s(r) = v(r) / v(r_c) the profile's shape,
// 1 at the core radius: a funnel or a tornado's inflow.
typedef enum bsVortexProfile
{
	bs_vortexLambOseen = 0,
	bs_vortexRankine,
	bs_vortexProfileCount
} bsVortexProfile;

const char* bsVortexProfileName(bsVortexProfile profile);

typedef struct bsVortexDef
{
	double rate;          // per second, >= 0; 0: off [0]
	bsVec3 center;        // a point on the axis [0, 0, 0]
	bsVec3 axis;          // its direction, not zero (any length: normalised) [0, 1, 0]
	double circulation;   // Gamma, units^2/s, any sign [0]
	double coreRadius;    // r_c, units, > 0 [1]
	bsVortexProfile profile;  // [lamb_oseen]
	double pull;          // units/s^2, any: the inward acceleration at the core radius [0]
} bsVortexDef;

bsVortexDef bsDefaultVortexDef(void);

// False for a setting out of range (above, NaN included; a zero axis).
bool bsVortexDef_IsValid(const bsVortexDef* def);

// v(r), the profile's speed at distance r >= 0 from the axis (signed as Gamma).
double bsVortex_Speed(const bsVortexDef* def, double r);

// The air's velocity u at p (tangential: at right angles to the axis and to p's offset from it).
bsVec3 bsVortex_Velocity(const bsVortexDef* def, bsVec3 p);

// --- Buoyancy (force_buoyancy.c) ---

// Buoyancy: hot gas rising. Each free particle gets the acceleration b(age) = acceleration
// exp(-age / decay), with age its time since it joined the set (bsWorld_BirthTime; the substep's start
// minus it): the lift of a puff that cools with a time constant `decay` (0: it never cools, a constant
// lift). Added with gravity and the other accelerations, so with gravity g and drag k (bsStepDef.drag)
// a particle under a constant lift reaches the terminal velocity (g + b) h e / (1 - e), e = exp(-k h),
// which is (g + b) / k to first order in k h.
typedef struct bsBuoyancyDef
{
	bsVec3 acceleration;  // units/s^2 at age 0, any; 0: off [0, 0, 0]
	double decay;         // seconds, >= 0: the lift's time constant; 0: no decay [0]
} bsBuoyancyDef;

// False for a non-finite acceleration or a negative or non-finite decay.
bool bsBuoyancyDef_IsValid(const bsBuoyancyDef* def);

// b(age) above.
bsVec3 bsBuoyancy_Acceleration(const bsBuoyancyDef* def, double age);

// --- The step (step.c) ---

typedef enum bsResponse
{
	bs_responseStick = 0,  // stop for good at the contact, as slime does (the paper's behaviour)
	bs_responseSlide,      // keep the tangential part of the motion for the rest of the step
	bs_responseBounce,     // reflect the normal part, scaled by the restitution
	bs_responseCount
} bsResponse;

const char* bsResponseName(bsResponse response);
bool bsParseResponse(const char* name, bsResponse* response);

#define BS_MAX_CONTACTS 64  // the largest maxContacts
#define BS_MAX_RADIALS 8    // the most radial forces a step holds

// Every setting of a step; bsDefaultStepDef() gives each its default (in brackets).
// A body's own distance/normal grid (bsStepDef.bodyFields).
typedef struct bsBodyField
{
	int body;                      // the body's index in the order added to the world (>= 0)
	const bsDistanceGrid* grid;    // built around the body's rest mesh (not NULL)
} bsBodyField;

// A rule between two species (bsStepDef.speciesPairs).
typedef struct bsSpeciesPair
{
	bool interact;         // the pair exerts forces on each other
	double restitution;    // granular: e, as bsInteractionDef's
	double friction;       // granular: Coulomb mu, as bsInteractionDef's
	double cohesion;       // the pair's pull, as bsInteractionDef's cohesion, >= 0
	double cohesionRange;  // its reach, as bsInteractionDef's cohesionRange, 1 .. 1e6
} bsSpeciesPair;

typedef struct bsStepDef
{
	double dt;            // step length, seconds, > 0 [1]
	int substeps;         // the step is done as this many substeps of dt / substeps, >= 1; 0: as
	                      // many as the interaction's rule asks (bsInteraction_PlanSubsteps) [1]
	int maxSubsteps;      // with substeps 0, a step that needs more fails with bs_errUnstable [1000]
	bsVec3 gravity;       // acceleration [0, 0, 0]
	double drag;          // linear air drag per second (dv/dt = g - drag v), >= 0 [0]
	bsMethod method;      // collision method [karabassi]
	bsResponse response;  // [stick]
	double restitution;   // bounce: the normal speed kept, 0..1 [0.5]
	double friction;      // slide and bounce: tangential speed lost per contact, as a fraction of the
	                      // normal speed removed (Coulomb); 0..1 [0]. With rotation (granular) it
	                      // acts on the contact point's slip u = v_t + omega x (-r n): the impulse
	                      // that stops the slip of a solid sphere (2/7 u a unit mass), at most
	                      // friction x the normal impulse J_n, and its torque; then rolling_friction's
	                      // torque impulse mu_r r J_n against the spin across n, at most stopping it
	                      // (so a ball rolls down a slope at 5/7 g sin theta while tan theta <= 7/2
	                      // friction, and stops on the flat after 7 v^2 / (10 mu_r g)); a particle
	                      // whose motion along the wall and spin across it both bounds can stop rests.
	int maxContacts;      // contacts handled per particle and substep, 1..BS_MAX_CONTACTS; then it
	                      // waits for the next [4]
	bool bounded;         // particles leaving [boundsMin, boundsMax] are marked escaped [false]
	bsVec3 boundsMin;
	bsVec3 boundsMax;
	// Rest: a free particle that is calm (|v| <= sleepSpeed at the end of a step and
	// |v_end - v_start| / dt <= sleepAcceleration over it) for sleepSteps steps in a row falls asleep
	// (bs_particleSleeping, velocity 0): it is no longer integrated until a moving particle touches it
	// (a contact with the stuck collider, world.h) approaching faster than wakeSpeed along the contact
	// normal, which wakes it after that move phase. A resting contact (an approach no faster than the
	// speed gravity adds in two substeps, which the response treats as inelastic) never wakes one.
	// With an interaction, sleepers are fixed neighbours of the interaction phase (above),
	// which wakes them by the same rule when a free particle touches one. Without one, free
	// particles pass through each other, so a woken particle lets the one that woke it sink into it:
	// for piles, a wakeSpeed above the landing speeds keeps the sleepers asleep.
	int sleepSteps;            // >= 0, 0: never [0]
	double sleepSpeed;         // >= 0 [0]
	double sleepAcceleration;  // >= 0 [0]
	double wakeSpeed;          // >= 0 [0: any approaching contact wakes]
	bsInteractionDef interaction;  // forces between particles [none]
	// Species (particles.h: bsParticles.species): the rule of each pair of species, speciesCount^2 of
	// them, row a column b for a particle of species a meeting one of species b (the table symmetric).
	// The pair kinds (repulsion, granular) only (the fluid ignores it): a pair whose rule does not
	// interact exerts nothing; one that does takes the rule's restitution, friction, cohesion and
	// cohesion range in place of the interaction's. A particle whose species is beyond the table takes
	// the last row's; a set without species (bsParticles.species NULL) is all species 0. The neighbour
	// lists reach as far as the farthest rule's cohesion (bsPairInteraction_Reach), and the substep plan
	// (bsStep_PlanSubsteps) takes the shortest period of any interacting rule's settings. NULL: every
	// pair as `interaction` [NULL].
	const struct bsSpeciesPair* speciesPairs;
	int speciesCount;          // 1 .. 255 with a table
	// With the table, each species' density, kg/m^3 (> 0), speciesCount of them: a particle of species s
	// has the mass speciesDensity[s] x its volume in place of interaction.density's, in its pairs'
	// shares and effective masses (the pair kinds' laws, step.h above, keep their meaning: a law given
	// by a stiffness or Hertz's moduli acts on the pair's m_eff = m_i m_j / (m_i + m_j); one given by a
	// contact time keeps that time and restitution for every pair, its spring m_eff K) and in what it
	// gives the bodies it pushes (two-way coupling); the plan takes the lightest. Equal to
	// interaction.density, the same bytes as without. Borrowed, as fieldGrid [NULL: every species
	// interaction.density].
	const double* speciesDensity;
	// The distance/normal grid's effects (field.h: spring, impact, drag, surface flow), applied in the
	// forces phase after the other forces, each particle from its own position and velocity and the
	// grid alone. NULL: none [NULL]. The step borrows the grid: it must outlive the step.
	const bsDistanceGrid* fieldGrid;
	// Its compressed tree (field.h): when not NULL the rules look it up instead of fieldGrid
	// (which may then be NULL) [NULL].
	const bsGridTree* fieldTree;
	bsFieldDef field;              // the rules [bsDefaultFieldDef(): all off]
	// Grids that move with their bodies (field.h, bsGridPose; the paper's section 3.1): bodyFields[k]
	// names a body (its index in the order added to the world) and a grid built around its rest mesh.
	// In the forces phase, after fieldGrid, each free particle inside a body's posed grid gets the
	// rules of `field` on its velocity relative to the body's surface (bsField_ApplyPosed), the bodies
	// in list order. The pose is the body's at the substep's start; the surface's velocity at a point,
	// its displacement to the pose at the substep's end over the substep (a dynamic body's chord over
	// the substep is set after the forces phase, so its surface is taken as still). A body scaled
	// unevenly at that time, or an index beyond the world's bodies, is passed over. Borrowed, as
	// fieldGrid [NULL, 0: none].
	const bsBodyField* bodyFields;
	int bodyFieldCount;
	// Pushes away from (or towards) points in time windows (above: explosions), applied in the
	// forces phase with gravity, each particle from its own position; radial[0] .. radial[radialCount
	// - 1] are added in that order [radialCount 0: none; each entry bsDefaultRadialDef()].
	bsRadialDef radial[BS_MAX_RADIALS];
	int radialCount;
	bsWindDef wind;                // a drag towards a moving air (above) [bsDefaultWindDef(): off]
	bsTurbulenceDef turbulence;    // a drag towards curl noise (above) [off]
	bsVortexDef vortex;            // a drag round an axis (above) [off]
	bsBuoyancyDef buoyancy;        // a lift that decays with age (above) [off]
	// Buoyancy by species (particles.h: bsParticles.species): a particle of species s <
	// speciesBuoyancyCount takes speciesBuoyancy[s] in place of `buoyancy`; one beyond, `buoyancy`.
	// Borrowed, as fieldGrid [NULL, 0: every species `buoyancy`].
	const bsBuoyancyDef* speciesBuoyancy;
	int speciesBuoyancyCount;
} bsStepDef;

bsStepDef bsDefaultStepDef(void);

// What a step did, summed over particles (integers: the same for any thread count).
typedef struct bsStepStats
{
	uint64_t contacts[bs_testCount][bs_branchCount];  // by sub-test and branch
	uint64_t queries;          // sweeps asked of the world
	uint64_t nodesVisited;
	uint64_t trianglesTested;
	uint64_t emitted;          // particles the emit phase added
	uint64_t stuck;            // particles stopped for good in this step
	uint64_t escaped;          // particles that left the bounds in this step
	uint64_t expired;          // particles whose lifetime ended in this step (now escaped too)
	uint64_t contactLimit;     // particles that used every contact of a substep
	uint64_t fellAsleep;       // particles that fell asleep at the end of this step
	uint64_t woken;            // sleeping particles a moving one touched in this step
	uint64_t substeps;         // substeps done
	uint64_t pairs;            // interaction: (particle, neighbour within reach) pairs, both ways
	uint64_t contactPairs;     // of those, pairs in contact (overlapping), both ways
	// The fluid's solves (bsFluidDef), over its substeps: iterations summed, the substeps whose solve
	// stopped at maxIterations, and the largest of the substeps' errors after their solve (maxima
	// combine in any order: the same for any thread count).
	uint64_t fluidSubsteps;
	uint64_t divergenceIterations, densityIterations, viscosityIterations;
	uint64_t unconverged;      // solves that stopped at their iteration limit
	double densityErrorMean;   // the largest mean compression after a constant-density solve
	double densityErrorMax;    // the largest compression of any particle after a solve
} bsStepStats;

// Advances the world and the particles by one step. stats (may be NULL) is added to. Fails with
// bs_errInvalidArgument for a setting out of range, bs_errUnstable when substeps is 0 and the step
// would need more than maxSubsteps (the particles then are as emitted, not moved), bs_errOutOfMemory when the particles cannot
// grow, or an emitter's error (bsEmitterDef_Emit: a particle that fails its check).
bsResult bsWorld_Step(bsWorld* world, const bsStepDef* def, bsParticles* particles,
	bsStepStats* stats);

// Every particle the emitters will still make, at once (the emit phase of bsWorld_Step appends only
// those born in its window), born at the world's time; a trail's none (its particles come from its
// sources, step by step). stats (may be NULL) counts them. Errors as for bsWorld_Step.
bsResult bsWorld_Emit(bsWorld* world, bsParticles* particles, bsStepStats* stats);

// After a failed emit phase: the emitter (in the order added) and the index within it of the
// particle that failed its check, for the caller's message. False when the last step's emission
// did not fail.
bool bsWorld_EmitFailure(const bsWorld* world, int* emitter, size_t* index);

void bsStepStats_Add(bsStepStats* total, const bsStepStats* add);

// Seconds the last step spent in each of its phases, on the monotonic clock (bsNow): one clock read
// per phase and substep, none per particle. The phases follow each other, so they add up to at most
// the step's wall time. Unlike bsStepStats they depend on the machine and its load: report them, never
// compare them (they change no other result).
typedef struct bsStepProfile
{
	double emit;         // the emit phase, and the sleep bookkeeping before the substeps
	double plan;         // choosing the substeps
	double interaction;  // the particle interaction (neighbour grid, contact forces) and its wakes
	double forces;       // gravity, drag and the field
	double colliders;    // the moving bodies' poses and dynamics, the stuck particles' collider grid
	double move;         // the sweeps against the colliders (with their Morton order) and their wakes
	double sleep;        // the end-of-step sleep test
	double expire;       // lifetimes
} bsStepProfile;

// The phases' times of the last bsWorld_Step (all zero before the first).
bsStepProfile bsWorld_GetProfile(const bsWorld* world);

void bsStepProfile_Add(bsStepProfile* total, const bsStepProfile* add);

// The sum of the phases' times.
double bsStepProfile_Total(const bsStepProfile* profile);
