"""The deterministic real-problem suite of issue 33: scikit-learn models on
datasets that ship with scikit-learn or that it generates (no downloads),
cross-validated on FIXED folds with a FIXED model random_state, so that a
point always gives exactly the same value. A classifier's error is a count of
misclassified samples over every fold divided by the number of samples (k/n
exactly): flat over wide regions, full of exact ties, as a user's CV error
is when the user does not reshuffle. A regression's error is continuous.

Seven problems have one objective (minimised, optimum 0: the regret is the
value); two have three (error, model size, fit cost), where size and cost
are counted from the fitted models (nodes, weights, operations), never
timed, so they are deterministic too. More, held_out() (five added
after the designers' rules were chosen, four with one objective and one
with three; five more of other kinds in a second round, later, four with
one objective and one with three; later still one with four objectives,
two three-objective ones whose trials fail, a third round of three with
one objective whose categories have 5 to 9 values, a three-objective
one whose error reports spike, three whose log-scale parameters are
declared linear and two over conditional spaces), are reachable
by name only: never run by default, never used to choose a rule;
branching() has three more over conditional spaces that rules for such
spaces may be tuned on. The three-objective problems'
hypervolume is measured at the reference points in REFERENCES, which no
designer is told.

Each problem has, besides bench/realistic/problems.py's interface (space,
describe(), observe(), evaluate(), optimum, trials):
  metric_names   the objectives' names (one for a single objective);
  values(point)  every objective's value at a point, in that order;
  spec()         the search space and metrics in the YAML `hyperparameters:`
                 vocabulary, for a Vernier study created from Python.
"""

import math
import os
import warnings

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from problems import (Infeasible, Problem, active_parameters, children,  # noqa: E402, F401
                      flat_parameters)  # (beside this file; the last two for deterministic_run.py)

# The folds and the models' random_state: fixed for every trial and seed.
FOLDS = 3
SPLIT_SEED = 0
MODEL_SEED = 0


class Deterministic(Problem):
    """A model cross-validated on fixed folds; values(point) is a pure
    function of the point. Subclasses give load() -> (x, y), model(point)
    and, for several objectives, measure(fitted models, train sizes)."""

    regression = False
    trials = 40
    metric_names = ["error"]

    def __init__(self):
        self._cache = {}

    def _data(self):
        if not hasattr(self, "_dataset"):
            self._dataset = self.load()
        return self._dataset

    def _folds(self):
        from sklearn.model_selection import KFold, StratifiedKFold
        x, y = self._data()
        splitter = (KFold(FOLDS, shuffle=True, random_state=SPLIT_SEED) if self.regression
                    else StratifiedKFold(FOLDS, shuffle=True, random_state=SPLIT_SEED))
        return list(splitter.split(x, y))

    def values(self, point):
        key = tuple(sorted((name, repr(value)) for name, value in point.items()))
        if key not in self._cache:
            self._cache[key] = self._compute(point)
        return list(self._cache[key])

    def _compute(self, point):
        x, y = self._data()
        wrong = 0
        squared = 0.0
        fitted = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for train, test in self._folds():
                model = self.model(point)
                model.fit(x[train], y[train])
                predicted = model.predict(x[test])
                if self.regression:
                    squared += float(np.sum((predicted - y[test]) ** 2))
                else:
                    wrong += int(np.sum(predicted != y[test]))
                fitted.append((model, len(train)))
        if self.regression:
            # Relative squared error over every fold: 1 - R^2, pooled.
            error = squared / float(np.sum((y - np.mean(y)) ** 2))
            if not math.isfinite(error):
                error = 1e6
            error = min(error, 1e6)
        else:
            error = wrong / len(y)
        if len(self.metric_names) == 1:
            return (error,)
        return (error, *self.measure(fitted))

    def evaluate(self, point):
        return self.values(point)[0]

    def report(self, values, seed, trial):
        """What trial `trial` of the run seeded `seed` reports for these
        values (every objective's): the values themselves, but for problems
        whose reports have spikes. Scores read the values."""
        return list(values)

    def observe(self, point, seed, trial):
        # Deterministic: the same point reports the same value in every
        # trial and seed.
        return self.evaluate(point)

    def spec(self):
        return {"metrics": [{"metricId": m, "goal": "MINIMIZE"} for m in self.metric_names],
                "params": [_parameter_spec(parameter) for parameter in self.space]}


def _parameter_spec(parameter):
    """A parameter of a space as a ParameterSpec in the YAML vocabulary, its
    conditional children nested."""
    name, kind = parameter[0], parameter[1]
    if kind in ("double", "int"):
        return {"parameterName": name, "type": "DOUBLE" if kind == "double" else "INTEGER",
                "minValue": parameter[2], "maxValue": parameter[3],
                "scaleType": "UNIT_LOG_SCALE" if parameter[4] == "log" else "UNIT_LINEAR_SCALE"}
    if kind == "discrete":
        return {"parameterName": name, "type": "DISCRETE", "discreteValues": list(parameter[2])}
    spec = {"parameterName": name, "type": "CATEGORICAL", "categoricalValues": list(parameter[2])}
    conditional = [{"parentCategoricalValues": {"values": list(values)},
                    "parameterSpec": _parameter_spec(child)}
                   for values, child_parameters in children(parameter)
                   for child in child_parameters]
    if conditional:
        spec["conditionalParameterSpecs"] = conditional
    return spec


# ------------------------------------------------------------ datasets

def _cancer():
    from sklearn.datasets import load_breast_cancer
    return load_breast_cancer(return_X_y=True)


def _wine():
    from sklearn.datasets import load_wine
    return load_wine(return_X_y=True)


def _digits(count):
    from sklearn.datasets import load_digits
    x, y = load_digits(return_X_y=True)
    return x[:count] / 16.0, y[:count]


def _synthetic_binary():
    from sklearn.datasets import make_classification
    return make_classification(n_samples=300, n_features=10, n_informative=5, n_redundant=2,
                               flip_y=0.03, class_sep=0.8, random_state=1)


def _synthetic_three_classes():
    from sklearn.datasets import make_classification
    return make_classification(n_samples=300, n_features=16, n_informative=5, n_redundant=3,
                               n_classes=3, n_clusters_per_class=1, flip_y=0.02,
                               class_sep=1.2, random_state=2)


def _synthetic_binary_400():
    """The held-out boosting problems' data: 400 samples, 2 classes, 12
    features, 5% of the labels flipped."""
    from sklearn.datasets import make_classification
    return make_classification(n_samples=400, n_features=12, n_informative=6, n_redundant=2,
                               flip_y=0.05, class_sep=0.9, random_state=5)


def _trees_size_and_work(trees_per_fold):
    """log10 of the mean tree nodes per fold's model, and log10 of the split
    work over every fold: for every internal node of every tree, its
    samples times the features it examined. `trees_per_fold` holds each
    fold's fitted decision trees."""
    nodes = 0
    work = 0
    for trees in trees_per_fold:
        for tree in trees:
            structure = tree.tree_
            nodes += structure.node_count
            internal = structure.children_left != -1
            work += int(np.sum(structure.n_node_samples[internal])) * tree.max_features_
    return math.log10(nodes / len(trees_per_fold)), math.log10(max(work, 1))


# ------------------------------------------------------ one objective

class SvmCancer(Deterministic):
    """A kernel SVM (scaled inputs) on the 569 breast-cancer samples: C and
    gamma on log scales, the kernel CATEGORICAL, degree INTEGER (poly only),
    coef0 (poly and sigmoid only): whole regions where a parameter does not
    matter."""
    name = "svm_cancer"
    space = [
        ("C", "double", 1e-3, 1e4, "log"),
        ("gamma", "double", 1e-5, 10.0, "log"),
        ("kernel", "categorical", ["rbf", "poly", "sigmoid"]),
        ("degree", "int", 2, 5, "linear"),
        ("coef0", "double", 0.0, 2.0, "linear"),
    ]

    def load(self):
        return _cancer()

    def model(self, p):
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
        from sklearn.svm import SVC
        return make_pipeline(StandardScaler(), SVC(
            C=p["C"], gamma=p["gamma"], kernel=p["kernel"], degree=int(p["degree"]),
            coef0=p["coef0"], max_iter=5000))


class GboostSynthetic(Deterministic):
    """Gradient boosting (integers, a DISCRETE number of trees, subsampling
    with a fixed random_state) on 300 generated samples, 10 features, 3% of
    the labels flipped."""
    name = "gboost_synthetic"
    space = [
        ("n_estimators", "discrete", [5, 10, 20, 40]),
        ("max_depth", "int", 1, 6, "linear"),
        ("learning_rate", "double", 0.01, 1.0, "log"),
        ("subsample", "double", 0.5, 1.0, "linear"),
        ("min_samples_leaf", "int", 1, 40, "log"),
    ]

    def load(self):
        return _synthetic_binary()

    def model(self, p):
        from sklearn.ensemble import GradientBoostingClassifier
        return GradientBoostingClassifier(
            n_estimators=int(p["n_estimators"]), max_depth=int(p["max_depth"]),
            learning_rate=p["learning_rate"], subsample=p["subsample"],
            min_samples_leaf=int(p["min_samples_leaf"]), random_state=MODEL_SEED)


def _decision_tree(p):
    """The decision tree of a point of TreeWine's or TreeTwoObjectives' space."""
    from sklearn.tree import DecisionTreeClassifier
    return DecisionTreeClassifier(
        max_depth=int(p["max_depth"]), min_samples_split=int(p["min_samples_split"]),
        min_samples_leaf=int(p["min_samples_leaf"]), max_features=float(p["max_features"]),
        criterion=p["criterion"], ccp_alpha=p["ccp_alpha"], random_state=MODEL_SEED)


def _random_forest(p):
    """The random forest of a point of ForestSynthetic's or Forest3Obj's space."""
    from sklearn.ensemble import RandomForestClassifier
    return RandomForestClassifier(
        n_estimators=int(p["n_estimators"]), max_depth=int(p["max_depth"]),
        min_samples_leaf=int(p["min_samples_leaf"]), max_features=float(p["max_features"]),
        criterion=p["criterion"], bootstrap=p["bootstrap"] == "true",
        random_state=MODEL_SEED)


class ForestSynthetic(Deterministic):
    """A random forest on 300 generated samples of 3 classes, 16 features."""
    name = "forest_synthetic"
    space = [
        ("n_estimators", "discrete", [5, 10, 20, 40]),
        ("max_depth", "int", 1, 16, "linear"),
        ("min_samples_leaf", "int", 1, 30, "log"),
        ("max_features", "double", 0.05, 1.0, "linear"),
        ("criterion", "categorical", ["gini", "entropy"]),
        ("bootstrap", "categorical", ["true", "false"]),
    ]

    def load(self):
        return _synthetic_three_classes()

    def model(self, p):
        return _random_forest(p)


class MlpDigits(Deterministic):
    """A multi-layer perceptron (Adam, 20 epochs at most) on the first 360
    handwritten digits (8x8, 10 classes)."""
    name = "mlp_digits"
    space = [
        ("width", "int", 8, 64, "log"),
        ("layers", "int", 1, 2, "linear"),
        ("activation", "categorical", ["relu", "tanh", "logistic"]),
        ("alpha", "double", 1e-6, 1.0, "log"),
        ("learning_rate_init", "double", 1e-4, 0.3, "log"),
        ("batch_size", "discrete", [16, 32, 64, 128]),
    ]

    def load(self):
        return _digits(360)

    def model(self, p):
        from sklearn.neural_network import MLPClassifier
        return MLPClassifier(
            hidden_layer_sizes=(int(p["width"]),) * int(p["layers"]),
            activation=p["activation"], alpha=p["alpha"],
            learning_rate_init=p["learning_rate_init"], batch_size=int(p["batch_size"]),
            max_iter=20, random_state=MODEL_SEED)


class KnnWine(Deterministic):
    """k nearest neighbours on the 178 wine samples, whose 13 features have
    very different scales: the scaler matters most."""
    name = "knn_wine"
    space = [
        ("n_neighbors", "int", 1, 60, "log"),
        ("weights", "categorical", ["uniform", "distance"]),
        ("p", "discrete", [1, 2, 3]),
        ("scaler", "categorical", ["none", "standard", "minmax", "robust"]),
    ]

    def load(self):
        return _wine()

    def model(self, p):
        from sklearn.neighbors import KNeighborsClassifier
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import MinMaxScaler, RobustScaler, StandardScaler
        knn = KNeighborsClassifier(n_neighbors=int(p["n_neighbors"]), weights=p["weights"],
                                   p=int(p["p"]), algorithm="brute")
        scaler = {"none": None, "standard": StandardScaler(), "minmax": MinMaxScaler(),
                  "robust": RobustScaler()}[p["scaler"]]
        return knn if scaler is None else make_pipeline(scaler, knn)


class KernelRidgeDiabetes(Deterministic):
    """Kernel ridge regression on the 442 diabetes patients (inputs and
    target standardised): a continuous error, 1 - R^2 pooled over the folds."""
    name = "kridge_diabetes"
    regression = True
    space = [
        ("alpha", "double", 1e-4, 10.0, "log"),
        ("kernel", "categorical", ["rbf", "laplacian", "polynomial"]),
        ("gamma", "double", 1e-4, 1.0, "log"),
        ("degree", "int", 1, 4, "linear"),
        ("coef0", "double", 0.0, 3.0, "linear"),
    ]

    def load(self):
        from sklearn.datasets import load_diabetes
        x, y = load_diabetes(return_X_y=True)
        return (x - x.mean(axis=0)) / x.std(axis=0), (y - y.mean()) / y.std()

    def model(self, p):
        from sklearn.kernel_ridge import KernelRidge
        return KernelRidge(alpha=p["alpha"], kernel=p["kernel"], gamma=p["gamma"],
                           degree=int(p["degree"]), coef0=p["coef0"])


class ElasticNetSynthetic(Deterministic):
    """An elastic net on 150 generated samples of 100 features, 8 of them
    informative: more features than samples, a budget of coordinate-descent
    passes, and a plateau where alpha is so large every coefficient is 0."""
    name = "enet_synthetic"
    regression = True
    space = [
        ("alpha", "double", 1e-4, 100.0, "log"),
        ("l1_ratio", "double", 0.0, 1.0, "linear"),
        ("max_iter", "int", 1, 300, "log"),
        ("fit_intercept", "categorical", ["true", "false"]),
        ("selection", "categorical", ["cyclic", "random"]),
    ]

    def load(self):
        from sklearn.datasets import make_regression
        x, y = make_regression(n_samples=150, n_features=100, n_informative=8, noise=10.0,
                               bias=20.0, random_state=3)
        return x, y

    def model(self, p):
        from sklearn.linear_model import ElasticNet
        return ElasticNet(alpha=p["alpha"], l1_ratio=p["l1_ratio"], max_iter=int(p["max_iter"]),
                          fit_intercept=p["fit_intercept"] == "true", selection=p["selection"],
                          random_state=MODEL_SEED)


# ------------------------------------- held out (one objective)
#
# Added after every rule of the GP designer was chosen, and never used to
# choose one: problems of kinds the suite above does not have (a single
# tree, a linear model with its penalty a category, a support-vector
# regression, histogram boosting), to check that what the suite measures
# holds elsewhere. Reachable by name (--problems), outside the default run.

class TreeWine(Deterministic):
    """One decision tree on the 178 wine samples: every parameter an integer
    or a threshold, so the error is a staircase of wide, exactly flat steps."""
    name = "tree_wine"
    space = [
        ("max_depth", "int", 1, 12, "linear"),
        ("min_samples_split", "int", 2, 40, "log"),
        ("min_samples_leaf", "int", 1, 20, "log"),
        ("max_features", "double", 0.1, 1.0, "linear"),
        ("criterion", "categorical", ["gini", "entropy"]),
        ("ccp_alpha", "double", 1e-4, 0.2, "log"),
    ]

    def load(self):
        return _wine()

    def model(self, p):
        return _decision_tree(p)


class LogregDigits(Deterministic):
    """Logistic regression (liblinear) on the first 500 digits: C over eight
    decades, the penalty and the class weights categories, a tolerance and
    an iteration budget that cut the fit short."""
    name = "logreg_digits"
    space = [
        ("C", "double", 1e-4, 1e4, "log"),
        ("penalty", "categorical", ["l1", "l2"]),
        ("class_weight", "categorical", ["none", "balanced"]),
        ("tol", "double", 1e-6, 1e-1, "log"),
        ("max_iter", "int", 2, 200, "log"),
    ]

    def load(self):
        return _digits(500)

    def model(self, p):
        from sklearn.linear_model import LogisticRegression
        return LogisticRegression(
            C=p["C"], penalty=p["penalty"], solver="liblinear", tol=p["tol"],
            max_iter=int(p["max_iter"]),
            class_weight=None if p["class_weight"] == "none" else "balanced",
            random_state=MODEL_SEED)


class SvrFriedman(Deterministic):
    """Support-vector regression (rbf kernel) on 240 samples of Friedman's
    first function (noise 1): a continuous error, C, epsilon and gamma on
    log scales, the inputs scaled or not (which moves gamma's good range)."""
    name = "svr_friedman"
    regression = True
    space = [
        ("C", "double", 1e-2, 1e3, "log"),
        ("epsilon", "double", 1e-3, 3.0, "log"),
        ("gamma", "double", 1e-3, 10.0, "log"),
        ("scaler", "categorical", ["none", "standard"]),
    ]

    def load(self):
        from sklearn.datasets import make_friedman1
        x, y = make_friedman1(n_samples=240, noise=1.0, random_state=4)
        return x, (y - y.mean()) / y.std()

    def model(self, p):
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
        from sklearn.svm import SVR
        svr = SVR(C=p["C"], epsilon=p["epsilon"], gamma=p["gamma"], kernel="rbf",
                  max_iter=200000)
        return svr if p["scaler"] == "none" else make_pipeline(StandardScaler(), svr)


class HistBoostSynthetic(Deterministic):
    """Histogram gradient boosting on 400 generated samples of 2 classes
    (5% of the labels flipped): a DISCRETE number of iterations, integers on
    log scales, an L2 penalty over seven decades."""
    name = "hgb_synthetic"
    space = [
        ("learning_rate", "double", 0.01, 1.0, "log"),
        ("max_iter", "discrete", [10, 20, 40, 80]),
        ("max_leaf_nodes", "int", 2, 64, "log"),
        ("min_samples_leaf", "int", 2, 60, "log"),
        ("l2_regularization", "double", 1e-6, 10.0, "log"),
    ]

    def load(self):
        return _synthetic_binary_400()

    def model(self, p):
        from sklearn.ensemble import HistGradientBoostingClassifier
        return HistGradientBoostingClassifier(
            learning_rate=p["learning_rate"], max_iter=int(p["max_iter"]),
            max_leaf_nodes=int(p["max_leaf_nodes"]), min_samples_leaf=int(p["min_samples_leaf"]),
            l2_regularization=p["l2_regularization"], early_stopping=False,
            random_state=MODEL_SEED)


# ------------------------------------------ held out, second round
# Four more one-objective problems of kinds the suite and the first round
# lack (a linear model whose loss and penalty are categories, boosting of
# stumps, a neighbours regression with an irrelevant parameter, randomised
# trees on images), added after every designer rule of the first round and
# run once, as the first round was: never used to choose a rule.

class SgdSynthetic(Deterministic):
    """A linear classifier trained by SGD on 450 generated samples of 3
    classes: its loss and penalty categories, the regularisation over six
    decades, the elastic net's mix (used only by one penalty) and a fixed
    number of passes over the data."""
    name = "sgd_synthetic"
    space = [
        ("loss", "categorical", ["hinge", "log_loss", "modified_huber", "perceptron"]),
        ("penalty", "categorical", ["l2", "l1", "elasticnet"]),
        ("alpha", "double", 1e-6, 1.0, "log"),
        ("l1_ratio", "double", 0.0, 1.0, "linear"),
        ("max_iter", "int", 1, 50, "log"),
        ("scaler", "categorical", ["none", "standard"]),
    ]

    def load(self):
        from sklearn.datasets import make_classification
        return make_classification(n_samples=450, n_features=20, n_informative=8,
                                   n_redundant=4, n_classes=3, flip_y=0.03, class_sep=1.0,
                                   random_state=11)

    def model(self, p):
        from sklearn.linear_model import SGDClassifier
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
        sgd = SGDClassifier(loss=p["loss"], penalty=p["penalty"], alpha=p["alpha"],
                            l1_ratio=p["l1_ratio"], max_iter=int(p["max_iter"]), tol=None,
                            random_state=MODEL_SEED)
        return sgd if p["scaler"] == "none" else make_pipeline(StandardScaler(), sgd)


class AdaboostCancer(Deterministic):
    """AdaBoost of shallow trees on the 569 breast-cancer samples: the
    number of rounds and the trees' depth integers, the learning rate over
    two decades; errors of a few samples, many exact ties."""
    name = "adaboost_cancer"
    space = [
        ("n_estimators", "int", 5, 60, "log"),
        ("learning_rate", "double", 0.02, 2.0, "log"),
        ("max_depth", "int", 1, 5, "linear"),
        ("min_samples_leaf", "int", 1, 50, "log"),
    ]

    def load(self):
        return _cancer()

    def model(self, p):
        from sklearn.ensemble import AdaBoostClassifier
        from sklearn.tree import DecisionTreeClassifier
        return AdaBoostClassifier(
            DecisionTreeClassifier(max_depth=int(p["max_depth"]),
                                   min_samples_leaf=int(p["min_samples_leaf"]),
                                   random_state=MODEL_SEED),
            n_estimators=int(p["n_estimators"]), learning_rate=p["learning_rate"],
            algorithm="SAMME", random_state=MODEL_SEED)


class KnnRegressionFriedman(Deterministic):
    """k nearest neighbours regression on 300 samples of Friedman's second
    function (noise 0.5, standardised): k an integer on a log scale, the
    weighting and the scaling categories, the Minkowski power continuous,
    and the tree's leaf size, which changes nothing (real spaces have such
    parameters): a continuous error."""
    name = "knnreg_friedman"
    regression = True
    space = [
        ("n_neighbors", "int", 1, 60, "log"),
        ("weights", "categorical", ["uniform", "distance"]),
        ("p", "double", 1.0, 4.0, "linear"),
        ("scaler", "categorical", ["none", "standard", "minmax"]),
        ("leaf_size", "int", 5, 100, "log"),
    ]

    def load(self):
        from sklearn.datasets import make_friedman2
        x, y = make_friedman2(n_samples=300, noise=0.5, random_state=12)
        return x, (y - y.mean()) / y.std()

    def model(self, p):
        from sklearn.neighbors import KNeighborsRegressor
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import MinMaxScaler, StandardScaler
        knn = KNeighborsRegressor(n_neighbors=int(p["n_neighbors"]), weights=p["weights"],
                                  p=p["p"], leaf_size=int(p["leaf_size"]))
        if p["scaler"] == "none":
            return knn
        return make_pipeline(StandardScaler() if p["scaler"] == "standard" else MinMaxScaler(),
                             knn)


class ExtraTreesDigits(Deterministic):
    """Extremely randomised trees on the first 600 digits: the number of
    trees, their depth and leaf size integers, the features examined per
    split continuous, bootstrap and the split criterion categories."""
    name = "extratrees_digits"
    space = [
        ("n_estimators", "int", 3, 60, "log"),
        ("max_depth", "int", 2, 24, "linear"),
        ("min_samples_leaf", "int", 1, 30, "log"),
        ("max_features", "double", 0.02, 1.0, "log"),
        ("bootstrap", "categorical", ["false", "true"]),
        ("criterion", "categorical", ["gini", "entropy"]),
    ]

    def load(self):
        return _digits(600)

    def model(self, p):
        from sklearn.ensemble import ExtraTreesClassifier
        return ExtraTreesClassifier(
            n_estimators=int(p["n_estimators"]), max_depth=int(p["max_depth"]),
            min_samples_leaf=int(p["min_samples_leaf"]), max_features=float(p["max_features"]),
            bootstrap=p["bootstrap"] == "true", criterion=p["criterion"],
            random_state=MODEL_SEED, n_jobs=1)


# -------------------------------------------------- three objectives

class ForestThreeObjectives(Deterministic):
    """A random forest on the 3-class generated data: error, model size
    (log10 of the number of tree nodes, the mean over the folds' forests)
    and fit cost (log10 of the split work, summed over the folds: for every
    internal node, its samples times the features it examined)."""
    name = "forest_3obj"
    trials = 100
    metric_names = ["error", "log10_nodes", "log10_split_work"]
    space = [
        ("n_estimators", "int", 1, 64, "log"),
        ("max_depth", "int", 1, 16, "linear"),
        ("min_samples_leaf", "int", 1, 30, "log"),
        ("max_features", "double", 0.05, 1.0, "linear"),
        ("criterion", "categorical", ["gini", "entropy"]),
        ("bootstrap", "categorical", ["true", "false"]),
    ]

    def load(self):
        return _synthetic_three_classes()

    def model(self, p):
        return _random_forest(p)

    def measure(self, fitted):
        return _trees_size_and_work([forest.estimators_ for forest, _ in fitted])


class ForestThreeObjectivesMemoryCap(ForestThreeObjectives):
    """forest_3obj on a machine whose memory holds at most 4,096 nodes'
    worth of forest: a trial fails (out of memory, no value) when its trees
    could hold more, n_estimators x 2^min(max_depth, 10) > 4,096 (34% of
    the space). The front's accurate end, large forests, lies against that
    edge. Held out (failure regions, issue 33)."""
    name = "forest_3obj_memory_cap"
    max_nodes = 4096

    def values(self, point):
        if int(point["n_estimators"]) * 2 ** min(int(point["max_depth"]), 10) > self.max_nodes:
            raise Infeasible("out of memory")
        return super().values(point)


class ForestThreeObjectivesFlaky(ForestThreeObjectives):
    """forest_3obj with a fifth of the trials lost at random (lost(): a lost
    node, drawn from the seed and the trial), wherever they are. Held out
    (failure regions, issue 33)."""
    name = "forest_3obj_flaky"
    key = 947
    flaky = 0.2


class ForestThreeObjectivesSpiky(ForestThreeObjectives):
    """forest_3obj whose error, in a sixth of the trials (drawn from the seed
    and the trial), is reported worse by an exponential draw of mean 0.1,
    as a run that met a bad node reports a poor error; size and work are
    counted, so they never spike. The hypervolume reads the true values.
    Held out (reports with a heavy tail of bad values, issue 33)."""
    name = "forest_3obj_spiky"
    key = 962
    spikes = (1 / 6, 0.1)

    def report(self, values, seed, trial):
        reported = list(values)
        reported[0] += self.spike(seed, trial)
        return reported


class MlpThreeObjectives(Deterministic):
    """A multi-layer perceptron on the first 360 digits: error, model size
    (log10 of its weights and biases) and fit cost (log10 of the
    multiply-adds of training, summed over the folds: 3 x weights x the
    samples of every epoch it ran)."""
    name = "mlp_3obj"
    trials = 100
    metric_names = ["error", "log10_weights", "log10_train_madds"]
    space = [
        ("width", "int", 4, 64, "log"),
        ("layers", "int", 1, 3, "linear"),
        ("activation", "categorical", ["relu", "tanh", "logistic"]),
        ("alpha", "double", 1e-6, 1.0, "log"),
        ("learning_rate_init", "double", 1e-4, 0.3, "log"),
        ("max_iter", "int", 2, 40, "log"),
    ]

    def load(self):
        return _digits(360)

    def model(self, p):
        from sklearn.neural_network import MLPClassifier
        return MLPClassifier(
            hidden_layer_sizes=(int(p["width"]),) * int(p["layers"]),
            activation=p["activation"], alpha=p["alpha"],
            learning_rate_init=p["learning_rate_init"], max_iter=int(p["max_iter"]),
            batch_size=32, random_state=MODEL_SEED)

    def measure(self, fitted):
        weights = sum(w.size for w in fitted[0][0].coefs_) + sum(
            b.size for b in fitted[0][0].intercepts_)
        madds = sum(3 * weights * samples * model.n_iter_ for model, samples in fitted)
        return math.log10(weights), math.log10(madds)


class GboostThreeObjectives(Deterministic):
    """Held out. Gradient boosting on 400 generated samples of 2 classes:
    error, model size (log10 of the number of tree nodes, the mean over the
    folds' ensembles) and fit cost (log10 of the split work, summed over the
    folds: for every internal node of every tree, its samples times the
    features it examined)."""
    name = "gboost_3obj"
    trials = 100
    metric_names = ["error", "log10_nodes", "log10_split_work"]
    space = [
        ("n_estimators", "int", 1, 100, "log"),
        ("max_depth", "int", 1, 8, "linear"),
        ("learning_rate", "double", 0.01, 1.0, "log"),
        ("subsample", "double", 0.3, 1.0, "linear"),
        ("min_samples_leaf", "int", 1, 40, "log"),
        ("max_features", "double", 0.1, 1.0, "linear"),
    ]

    def load(self):
        return _synthetic_binary_400()

    def model(self, p):
        from sklearn.ensemble import GradientBoostingClassifier
        return GradientBoostingClassifier(
            n_estimators=int(p["n_estimators"]), max_depth=int(p["max_depth"]),
            learning_rate=p["learning_rate"], subsample=p["subsample"],
            min_samples_leaf=int(p["min_samples_leaf"]), max_features=float(p["max_features"]),
            random_state=MODEL_SEED)

    def measure(self, fitted):
        # One regression tree per stage (two classes: one column).
        return _trees_size_and_work([ensemble.estimators_[:, 0] for ensemble, _ in fitted])


class SparseLogregThreeObjectives(Deterministic):
    """Held out, second round. L1-penalised logistic regression (liblinear,
    one against the rest) on polynomial features of the 178 wine samples,
    standardised: error, model size (log10 of 1 + the nonzero coefficients,
    the mean over the folds' models) and fit cost (log10 of the solver's
    iterations times the coefficients times the training samples, summed
    over the folds and the classes' problems)."""
    name = "sparse_logreg_3obj"
    trials = 100
    metric_names = ["error", "log10_nonzero", "log10_solver_work"]
    space = [
        ("degree", "int", 1, 3, "linear"),
        ("interaction_only", "categorical", ["false", "true"]),
        ("C", "double", 1e-3, 1e3, "log"),
        ("tol", "double", 1e-5, 1e-1, "log"),
        ("max_iter", "int", 2, 300, "log"),
    ]

    def load(self):
        return _wine()

    def model(self, p):
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import PolynomialFeatures, StandardScaler
        return make_pipeline(
            PolynomialFeatures(degree=int(p["degree"]),
                               interaction_only=p["interaction_only"] == "true",
                               include_bias=False),
            StandardScaler(),
            LogisticRegression(penalty="l1", solver="liblinear", C=p["C"], tol=p["tol"],
                               max_iter=int(p["max_iter"]), random_state=MODEL_SEED))

    def measure(self, fitted):
        nonzero = []
        work = 0
        for pipeline, samples in fitted:
            model = pipeline[-1]
            nonzero.append(int(np.count_nonzero(model.coef_)))
            # liblinear reports the largest iteration count of the classes'
            # problems; each problem is charged it.
            work += int(np.max(model.n_iter_)) * model.coef_.size * samples
        return math.log10(1 + sum(nonzero) / len(nonzero)), math.log10(max(work, 1))


# --------------------------------- held out, third round: many categories
# Every CATEGORICAL parameter above has 2 to 4 values. Real spaces often
# have more: a preprocessing step among eight, a distance among six, the
# model family itself among nine. Added after every designer rule was
# chosen, as the rounds above.

def _scaler(name):
    from sklearn.preprocessing import (MaxAbsScaler, MinMaxScaler, PowerTransformer,
                                       QuantileTransformer, RobustScaler, StandardScaler)
    return {"none": None, "standard": StandardScaler(), "minmax": MinMaxScaler(),
            "maxabs": MaxAbsScaler(), "robust": RobustScaler(),
            "quantile_uniform": QuantileTransformer(n_quantiles=100, random_state=MODEL_SEED),
            "quantile_normal": QuantileTransformer(n_quantiles=100,
                                                   output_distribution="normal",
                                                   random_state=MODEL_SEED),
            "power": PowerTransformer()}[name]


SCALERS = ["none", "standard", "minmax", "maxabs", "robust", "quantile_uniform",
           "quantile_normal", "power"]


class KnnMetricDigits(Deterministic):
    """k nearest neighbours on the first 450 digits: the scaling among
    eight, the distance among six, k an integer on a log scale and the
    weighting: 96 combinations of categories."""
    name = "knn_metric_digits"
    space = [
        ("scaler", "categorical", SCALERS),
        ("metric", "categorical", ["euclidean", "manhattan", "chebyshev", "cosine",
                                   "braycurtis", "canberra"]),
        ("n_neighbors", "int", 1, 40, "log"),
        ("weights", "categorical", ["uniform", "distance"]),
    ]

    def load(self):
        return _digits(450)

    def model(self, p):
        from sklearn.neighbors import KNeighborsClassifier
        from sklearn.pipeline import make_pipeline
        knn = KNeighborsClassifier(n_neighbors=int(p["n_neighbors"]), weights=p["weights"],
                                   metric=p["metric"], algorithm="brute")
        scaler = _scaler(p["scaler"])
        return knn if scaler is None else make_pipeline(scaler, knn)


class SgdScheduleDigits(Deterministic):
    """A linear classifier by SGD on the first 600 digits: the loss among
    five, the step schedule among four, the penalty among three, the
    regularisation and the first step over decades, a few passes."""
    name = "sgd_schedule_digits"
    space = [
        ("loss", "categorical", ["hinge", "log_loss", "modified_huber", "squared_hinge",
                                 "perceptron"]),
        ("learning_rate", "categorical", ["optimal", "constant", "invscaling", "adaptive"]),
        ("penalty", "categorical", ["l2", "l1", "elasticnet"]),
        ("alpha", "double", 1e-6, 1.0, "log"),
        ("eta0", "double", 1e-4, 1.0, "log"),
        ("max_iter", "int", 2, 40, "log"),
    ]

    def load(self):
        return _digits(600)

    def model(self, p):
        from sklearn.linear_model import SGDClassifier
        return SGDClassifier(loss=p["loss"], learning_rate=p["learning_rate"],
                             penalty=p["penalty"], alpha=p["alpha"], eta0=p["eta0"],
                             max_iter=int(p["max_iter"]), tol=None, random_state=MODEL_SEED)


class ModelChoiceSynthetic(Deterministic):
    """The model family itself among nine, on 400 generated samples of 3
    classes, with one shared `strength` (each family's main regularisation
    or capacity, mapped onto its own range) and the scaling among four."""
    name = "model_choice_synthetic"
    space = [
        ("model", "categorical", ["logreg", "linear_svc", "ridge", "knn", "tree", "forest",
                                  "naive_bayes", "lda", "centroid"]),
        ("strength", "double", 1e-3, 1e3, "log"),
        ("scaler", "categorical", ["none", "standard", "minmax", "quantile_normal"]),
    ]

    def load(self):
        from sklearn.datasets import make_classification
        x, y = make_classification(n_samples=400, n_features=15, n_informative=6,
                                   n_redundant=3, n_classes=3, n_clusters_per_class=2,
                                   flip_y=0.03, class_sep=1.0, random_state=13)
        # Features on very different scales, as raw columns are.
        return x * np.logspace(-2, 2, x.shape[1]), y

    def model(self, p):
        from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.linear_model import LogisticRegression, RidgeClassifier
        from sklearn.naive_bayes import GaussianNB
        from sklearn.neighbors import KNeighborsClassifier, NearestCentroid
        from sklearn.pipeline import make_pipeline
        from sklearn.svm import LinearSVC
        from sklearn.tree import DecisionTreeClassifier
        s = float(p["strength"])
        level = (math.log10(s) + 3) / 6  # 0..1 over the range
        model = {
            "logreg": lambda: LogisticRegression(C=s, max_iter=200),
            "linear_svc": lambda: LinearSVC(C=s, max_iter=2000, random_state=MODEL_SEED),
            "ridge": lambda: RidgeClassifier(alpha=1 / s),
            "knn": lambda: KNeighborsClassifier(n_neighbors=1 + int(round(39 * (1 - level)))),
            "tree": lambda: DecisionTreeClassifier(max_depth=1 + int(round(11 * level)),
                                                   random_state=MODEL_SEED),
            "forest": lambda: RandomForestClassifier(n_estimators=20,
                                                     max_depth=1 + int(round(11 * level)),
                                                     random_state=MODEL_SEED, n_jobs=1),
            "naive_bayes": lambda: GaussianNB(var_smoothing=10 ** (-9 + 9 * (1 - level))),
            "lda": lambda: LinearDiscriminantAnalysis(solver="lsqr", shrinkage=1 - level),
            "centroid": lambda: NearestCentroid(shrink_threshold=2 * (1 - level) or None),
        }[p["model"]]()
        scaler = _scaler(p["scaler"])
        return model if scaler is None else make_pipeline(scaler, model)


# ------------------------------------------ branching: conditional spaces

class ConditionalModelSynthetic(Deterministic):
    """Which model and its own parameters (a conditional space, two levels
    deep: auto-sklearn's kind of problem): five classifiers, each with the
    parameters that exist only for it, the SVM's polynomial degree only
    for its polynomial kernel, and a scaling shared by all; 400 generated
    samples of 3 classes."""
    name = "conditional_model_synthetic"
    space = [
        ("scaler", "categorical", ["none", "standard"]),
        ("model", "categorical", ["svm", "knn", "forest", "logreg", "boosting"], [
            (["svm"], [
                ("svm_C", "double", 1e-2, 1e4, "log"),
                ("svm_gamma", "double", 1e-5, 1.0, "log"),
                ("svm_kernel", "categorical", ["rbf", "poly"], [
                    (["poly"], [("svm_degree", "int", 2, 4, "linear")]),
                ]),
            ]),
            (["knn"], [
                ("knn_neighbors", "int", 1, 60, "log"),
                ("knn_weights", "categorical", ["uniform", "distance"]),
                ("knn_metric", "categorical", ["euclidean", "manhattan"]),
            ]),
            (["forest"], [
                ("forest_trees", "int", 10, 100, "log"),
                ("forest_depth", "int", 2, 20, "linear"),
                ("forest_features", "double", 0.05, 1.0, "linear"),
                ("forest_leaf", "int", 1, 20, "log"),
            ]),
            (["logreg"], [
                ("logreg_C", "double", 1e-4, 1e4, "log"),
                ("logreg_penalty", "categorical", ["l1", "l2"]),
            ]),
            (["boosting"], [
                ("boosting_rate", "double", 0.01, 1.0, "log"),
                ("boosting_leaves", "int", 2, 64, "log"),
                ("boosting_iterations", "discrete", [20, 40, 80]),
                ("boosting_l2", "double", 1e-6, 10.0, "log"),
            ]),
        ]),
    ]

    def load(self):
        from sklearn.datasets import make_classification
        x, y = make_classification(n_samples=400, n_features=20, n_informative=8,
                                   n_redundant=4, n_classes=3, n_clusters_per_class=2,
                                   flip_y=0.03, class_sep=1.0, random_state=21)
        # Columns on different scales, as raw features are.
        return x * np.logspace(-1, 1, x.shape[1]), y

    def model(self, p):
        from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
        from sklearn.linear_model import LogisticRegression
        from sklearn.neighbors import KNeighborsClassifier
        from sklearn.pipeline import make_pipeline
        from sklearn.svm import SVC
        kind = p["model"]
        if kind == "svm":
            model = SVC(C=p["svm_C"], gamma=p["svm_gamma"], kernel=p["svm_kernel"],
                        degree=int(p.get("svm_degree", 3)), coef0=1.0, max_iter=20000)
        elif kind == "knn":
            model = KNeighborsClassifier(n_neighbors=int(p["knn_neighbors"]),
                                         weights=p["knn_weights"], metric=p["knn_metric"])
        elif kind == "forest":
            model = RandomForestClassifier(n_estimators=int(p["forest_trees"]),
                                           max_depth=int(p["forest_depth"]),
                                           max_features=p["forest_features"],
                                           min_samples_leaf=int(p["forest_leaf"]),
                                           random_state=MODEL_SEED, n_jobs=1)
        elif kind == "logreg":
            model = LogisticRegression(C=p["logreg_C"], penalty=p["logreg_penalty"],
                                       solver="liblinear", max_iter=500)
        else:
            model = HistGradientBoostingClassifier(
                learning_rate=p["boosting_rate"], max_leaf_nodes=int(p["boosting_leaves"]),
                max_iter=int(p["boosting_iterations"]), l2_regularization=p["boosting_l2"],
                early_stopping=False, random_state=MODEL_SEED)
        scaler = _scaler(p["scaler"])
        return model if scaler is None else make_pipeline(scaler, model)


class ConditionalRegressionDiabetes(Deterministic):
    """Which regression model and its own parameters on the 442 diabetes
    patients (a continuous error, 1 - R^2 pooled over the folds): five
    regressors, the kernel ridge's degree only for its polynomial kernel."""
    name = "conditional_regression_diabetes"
    regression = True
    space = [
        ("model", "categorical", ["svr", "kernel_ridge", "knn", "boosting", "elastic_net"], [
            (["svr"], [
                ("svr_C", "double", 1e-2, 1e3, "log"),
                ("svr_epsilon", "double", 1e-3, 1.0, "log"),
                ("svr_gamma", "double", 1e-4, 1.0, "log"),
            ]),
            (["kernel_ridge"], [
                ("kridge_alpha", "double", 1e-4, 10.0, "log"),
                ("kridge_gamma", "double", 1e-4, 1.0, "log"),
                ("kridge_kernel", "categorical", ["rbf", "laplacian", "poly"], [
                    (["poly"], [("kridge_degree", "int", 2, 3, "linear")]),
                ]),
            ]),
            (["knn"], [
                ("knn_neighbors", "int", 1, 80, "log"),
                ("knn_weights", "categorical", ["uniform", "distance"]),
            ]),
            (["boosting"], [
                ("boosting_rate", "double", 0.01, 1.0, "log"),
                ("boosting_leaves", "int", 2, 64, "log"),
                ("boosting_iterations", "discrete", [25, 50, 100]),
                ("boosting_leaf", "int", 2, 60, "log"),
            ]),
            (["elastic_net"], [
                ("enet_alpha", "double", 1e-5, 10.0, "log"),
                ("enet_l1_ratio", "double", 0.0, 1.0, "linear"),
            ]),
        ]),
    ]

    def load(self):
        from sklearn.datasets import load_diabetes
        x, y = load_diabetes(return_X_y=True)
        # Standardised columns (the raw ones are scaled to unit norm) and the
        # target in standard units, so that one set of ranges suits every
        # model.
        return (x - x.mean(axis=0)) / x.std(axis=0), (y - y.mean()) / y.std()

    def model(self, p):
        from sklearn.ensemble import HistGradientBoostingRegressor
        from sklearn.kernel_ridge import KernelRidge
        from sklearn.linear_model import ElasticNet
        from sklearn.neighbors import KNeighborsRegressor
        from sklearn.svm import SVR
        kind = p["model"]
        if kind == "svr":
            return SVR(C=p["svr_C"], epsilon=p["svr_epsilon"], gamma=p["svr_gamma"],
                       max_iter=50000)
        if kind == "kernel_ridge":
            return KernelRidge(alpha=p["kridge_alpha"], gamma=p["kridge_gamma"],
                               kernel=p["kridge_kernel"],
                               degree=int(p.get("kridge_degree", 3)), coef0=1.0)
        if kind == "knn":
            return KNeighborsRegressor(n_neighbors=int(p["knn_neighbors"]),
                                       weights=p["knn_weights"])
        if kind == "boosting":
            return HistGradientBoostingRegressor(
                learning_rate=p["boosting_rate"], max_leaf_nodes=int(p["boosting_leaves"]),
                max_iter=int(p["boosting_iterations"]),
                min_samples_leaf=int(p["boosting_leaf"]), early_stopping=False,
                random_state=MODEL_SEED)
        return ElasticNet(alpha=p["enet_alpha"], l1_ratio=p["enet_l1_ratio"], max_iter=5000)


class ConditionalModelDigits(Deterministic):
    """Which classifier and its own parameters on the first 600 digits (a
    conditional space, the SVM's degree two levels deep): tuned on, beside
    the synthetic `conditional` function, for the designers' rules on
    branching spaces."""
    name = "conditional_model_digits"
    space = [
        ("model", "categorical", ["svm", "knn", "forest", "logreg", "tree"], [
            (["svm"], [
                ("svm_C", "double", 1e-3, 1e3, "log"),
                ("svm_gamma", "double", 1e-4, 10.0, "log"),
                ("svm_kernel", "categorical", ["rbf", "poly"], [
                    (["poly"], [("svm_degree", "int", 2, 5, "linear")]),
                ]),
            ]),
            (["knn"], [
                ("knn_neighbors", "int", 1, 50, "log"),
                ("knn_weights", "categorical", ["uniform", "distance"]),
            ]),
            (["forest"], [
                ("forest_trees", "int", 5, 60, "log"),
                ("forest_depth", "int", 2, 24, "linear"),
                ("forest_features", "double", 0.02, 0.5, "log"),
            ]),
            (["logreg"], [
                ("logreg_C", "double", 1e-4, 1e3, "log"),
            ]),
            (["tree"], [
                ("tree_depth", "int", 2, 30, "linear"),
                ("tree_leaf", "int", 1, 30, "log"),
                ("tree_criterion", "categorical", ["gini", "entropy"]),
            ]),
        ]),
    ]

    def load(self):
        return _digits(600)

    def model(self, p):
        from sklearn.ensemble import RandomForestClassifier
        from sklearn.linear_model import LogisticRegression
        from sklearn.neighbors import KNeighborsClassifier
        from sklearn.svm import SVC
        from sklearn.tree import DecisionTreeClassifier
        kind = p["model"]
        if kind == "svm":
            return SVC(C=p["svm_C"], gamma=p["svm_gamma"], kernel=p["svm_kernel"],
                       degree=int(p.get("svm_degree", 3)), coef0=1.0, max_iter=20000)
        if kind == "knn":
            return KNeighborsClassifier(n_neighbors=int(p["knn_neighbors"]),
                                        weights=p["knn_weights"])
        if kind == "forest":
            return RandomForestClassifier(n_estimators=int(p["forest_trees"]),
                                          max_depth=int(p["forest_depth"]),
                                          max_features=p["forest_features"],
                                          random_state=MODEL_SEED, n_jobs=1)
        if kind == "logreg":
            return LogisticRegression(C=p["logreg_C"], max_iter=300)
        return DecisionTreeClassifier(max_depth=int(p["tree_depth"]),
                                      min_samples_leaf=int(p["tree_leaf"]),
                                      criterion=p["tree_criterion"], random_state=MODEL_SEED)


class ConditionalRegressionFriedman(Deterministic):
    """Which regressor and its own parameters on 300 samples of Friedman #1
    (noise 1; a continuous error): tuned on, as conditional_model_digits."""
    name = "conditional_regression_friedman"
    regression = True
    space = [
        ("model", "categorical", ["svr", "knn", "forest", "kernel_ridge", "elastic_net"], [
            (["svr"], [
                ("svr_C", "double", 1e-2, 1e3, "log"),
                ("svr_gamma", "double", 1e-3, 10.0, "log"),
                ("svr_epsilon", "double", 1e-3, 1.0, "log"),
            ]),
            (["knn"], [
                ("knn_neighbors", "int", 1, 50, "log"),
                ("knn_weights", "categorical", ["uniform", "distance"]),
            ]),
            (["forest"], [
                ("forest_trees", "int", 5, 80, "log"),
                ("forest_depth", "int", 2, 20, "linear"),
                ("forest_features", "double", 0.1, 1.0, "linear"),
            ]),
            (["kernel_ridge"], [
                ("kridge_alpha", "double", 1e-4, 10.0, "log"),
                ("kridge_kernel", "categorical", ["rbf", "poly"], [
                    (["rbf"], [("kridge_gamma", "double", 1e-3, 10.0, "log")]),
                    (["poly"], [("kridge_degree", "int", 2, 4, "linear")]),
                ]),
            ]),
            (["elastic_net"], [
                ("enet_alpha", "double", 1e-5, 10.0, "log"),
                ("enet_l1_ratio", "double", 0.0, 1.0, "linear"),
            ]),
        ]),
    ]

    def load(self):
        from sklearn.datasets import make_friedman1
        x, y = make_friedman1(n_samples=300, n_features=8, noise=1.0, random_state=4)
        return (x - x.mean(axis=0)) / x.std(axis=0), (y - y.mean()) / y.std()

    def model(self, p):
        from sklearn.ensemble import RandomForestRegressor
        from sklearn.kernel_ridge import KernelRidge
        from sklearn.linear_model import ElasticNet
        from sklearn.neighbors import KNeighborsRegressor
        from sklearn.svm import SVR
        kind = p["model"]
        if kind == "svr":
            return SVR(C=p["svr_C"], gamma=p["svr_gamma"], epsilon=p["svr_epsilon"],
                       max_iter=50000)
        if kind == "knn":
            return KNeighborsRegressor(n_neighbors=int(p["knn_neighbors"]),
                                       weights=p["knn_weights"])
        if kind == "forest":
            return RandomForestRegressor(n_estimators=int(p["forest_trees"]),
                                         max_depth=int(p["forest_depth"]),
                                         max_features=p["forest_features"],
                                         random_state=MODEL_SEED, n_jobs=1)
        if kind == "kernel_ridge":
            return KernelRidge(alpha=p["kridge_alpha"], kernel=p["kridge_kernel"],
                               gamma=p.get("kridge_gamma"), degree=int(p.get("kridge_degree", 3)),
                               coef0=1.0)
        return ElasticNet(alpha=p["enet_alpha"], l1_ratio=p["enet_l1_ratio"], max_iter=5000)


class ConditionalClassifierSynthetic(Deterministic):
    """Which classifier and its own parameters on 450 generated samples of 3
    classes, where several models come out close: tuned on, as
    conditional_model_digits."""
    name = "conditional_classifier_synthetic"
    space = [
        ("scaler", "categorical", ["none", "standard"]),
        ("model", "categorical", ["svm", "knn", "trees", "logreg", "boosting"], [
            (["svm"], [
                ("svm_C", "double", 1e-2, 1e4, "log"),
                ("svm_gamma", "double", 1e-4, 1.0, "log"),
            ]),
            (["knn"], [
                ("knn_neighbors", "int", 1, 60, "log"),
                ("knn_weights", "categorical", ["uniform", "distance"]),
            ]),
            (["trees"], [
                ("trees_count", "int", 10, 100, "log"),
                ("trees_depth", "int", 2, 20, "linear"),
                ("trees_features", "double", 0.05, 1.0, "linear"),
            ]),
            (["logreg"], [
                ("logreg_C", "double", 1e-4, 1e4, "log"),
                ("logreg_penalty", "categorical", ["l1", "l2"]),
            ]),
            (["boosting"], [
                ("boosting_rate", "double", 0.01, 1.0, "log"),
                ("boosting_stages", "discrete", [20, 50, 100]),
                ("boosting_depth", "int", 1, 5, "linear"),
                ("boosting_subsample", "double", 0.5, 1.0, "linear"),
            ]),
        ]),
    ]

    def load(self):
        from sklearn.datasets import make_classification
        x, y = make_classification(n_samples=450, n_features=16, n_informative=6,
                                   n_redundant=3, n_classes=3, n_clusters_per_class=2,
                                   flip_y=0.03, class_sep=0.9, random_state=31)
        return x * np.logspace(-1, 1, x.shape[1]), y

    def model(self, p):
        from sklearn.ensemble import ExtraTreesClassifier, GradientBoostingClassifier
        from sklearn.linear_model import LogisticRegression
        from sklearn.neighbors import KNeighborsClassifier
        from sklearn.pipeline import make_pipeline
        from sklearn.svm import SVC
        kind = p["model"]
        if kind == "svm":
            model = SVC(C=p["svm_C"], gamma=p["svm_gamma"], max_iter=20000)
        elif kind == "knn":
            model = KNeighborsClassifier(n_neighbors=int(p["knn_neighbors"]),
                                         weights=p["knn_weights"])
        elif kind == "trees":
            model = ExtraTreesClassifier(n_estimators=int(p["trees_count"]),
                                         max_depth=int(p["trees_depth"]),
                                         max_features=p["trees_features"],
                                         random_state=MODEL_SEED, n_jobs=1)
        elif kind == "logreg":
            model = LogisticRegression(C=p["logreg_C"], penalty=p["logreg_penalty"],
                                       solver="liblinear", max_iter=500)
        else:
            model = GradientBoostingClassifier(
                learning_rate=p["boosting_rate"], n_estimators=int(p["boosting_stages"]),
                max_depth=int(p["boosting_depth"]), subsample=p["boosting_subsample"],
                random_state=MODEL_SEED)
        scaler = _scaler(p["scaler"])
        return model if scaler is None else make_pipeline(scaler, model)


def branching():
    """One-objective problems over conditional spaces that the designers'
    rules for such spaces were tuned on (held_out() has two more, never
    used to choose one)."""
    return [ConditionalModelDigits(), ConditionalRegressionFriedman(),
            ConditionalClassifierSynthetic()]


# -------------------------------------------------- four objectives

class ForestFourObjectives(Deterministic):
    """Held out (four objectives). A random forest on the held-out boosting
    problems' data (400 samples, 2 classes): error, model size (log10 of
    the tree nodes, the mean over the folds' forests), fit cost (log10 of
    the split work, summed over the folds) and serving cost (log10 of the
    tree nodes visited predicting all 400 samples with the first fold's
    forest): size and serving cost grow together with the trees, but
    serving follows their depth and size their breadth."""
    name = "forest_4obj"
    trials = 100
    metric_names = ["error", "log10_nodes", "log10_split_work", "log10_predict_nodes"]
    space = ForestThreeObjectives.space

    def load(self):
        return _synthetic_binary_400()

    def model(self, p):
        return _random_forest(p)

    def measure(self, fitted):
        nodes, work = _trees_size_and_work([forest.estimators_ for forest, _ in fitted])
        x, _ = self._data()
        visited = fitted[0][0].decision_path(x)[0].nnz
        return nodes, work, math.log10(visited)


class SvmTwoObjectives(Deterministic):
    """Held out, two objectives (never used to choose a rule). A kernel SVM
    (scaled inputs) on the 569 breast-cancer samples: error, and its
    serving cost, log10 of the support vectors (the mean over the folds'
    models: each prediction costs a kernel evaluation per support vector).
    The kernel CATEGORICAL and class_weight CATEGORICAL; both objectives are
    counts, the error with plateaus and exact ties."""
    name = "svm_2obj"
    trials = 100
    metric_names = ["error", "log10_support_vectors"]
    space = [
        ("C", "double", 1e-3, 1e4, "log"),
        ("gamma", "double", 1e-5, 10.0, "log"),
        ("kernel", "categorical", ["rbf", "sigmoid"]),
        ("class_weight", "categorical", ["none", "balanced"]),
        ("tol", "double", 1e-5, 0.1, "log"),
    ]

    def load(self):
        return _cancer()

    def model(self, p):
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
        from sklearn.svm import SVC
        return make_pipeline(StandardScaler(), SVC(
            C=p["C"], gamma=p["gamma"], kernel=p["kernel"], tol=p["tol"],
            class_weight=None if p["class_weight"] == "none" else "balanced", max_iter=5000))

    def measure(self, fitted):
        vectors = sum(int(pipeline[-1].n_support_.sum()) for pipeline, _ in fitted)
        return (math.log10(vectors / len(fitted)),)


class TreeTwoObjectives(Deterministic):
    """Held out, two objectives (never used to choose a rule). One decision
    tree on the first 600 digits: error, and its size, log10 of the leaves
    (the mean over the folds' trees): accuracy against a model a person can
    read. A staircase of flat steps in both objectives."""
    name = "tree_2obj"
    trials = 100
    metric_names = ["error", "log10_leaves"]
    space = [
        ("max_depth", "int", 1, 20, "linear"),
        ("min_samples_split", "int", 2, 40, "log"),
        ("min_samples_leaf", "int", 1, 30, "log"),
        ("max_features", "double", 0.1, 1.0, "linear"),
        ("criterion", "categorical", ["gini", "entropy"]),
        ("ccp_alpha", "double", 1e-5, 0.1, "log"),
    ]

    def load(self):
        return _digits(600)

    def model(self, p):
        return _decision_tree(p)

    def measure(self, fitted):
        leaves = sum(tree.get_n_leaves() for tree, _ in fitted)
        return (math.log10(leaves / len(fitted)),)


# Hypervolume reference points of the three-objective problems, in the
# reported units (every objective minimised), with the ideal corner each
# hypervolume is normalised by: the fraction of the box [ideal, reference]
# that the trials dominate. "wide" takes every model that beats chance by a
# margin; "tight" only the accurate ones (the knee of the front). The
# designers are told neither.
REFERENCES = {
    "forest_3obj": {
        "ideal": (0.0, 0.0, 3.0),
        "wide": (0.5, 3.5, 7.0),
        "tight": (0.2, 2.5, 5.5),
    },
    "mlp_3obj": {
        "ideal": (0.0, 2.4, 6.0),
        "wide": (0.6, 4.2, 9.0),
        "tight": (0.15, 3.6, 8.0),
    },
    # Held out: set from 300 random points (error 0.12 to 0.50, log10 nodes
    # 0.5 to 3.9, log10 split work 3.2 to 6.6), before any designer ran.
    "gboost_3obj": {
        "ideal": (0.0, 0.0, 3.0),
        "wide": (0.4, 4.0, 7.0),
        "tight": (0.18, 2.5, 5.0),
    },
    # Held out, second round: set the same way (the 240 of 300 random
    # points with an error under 0.5: error 0.006 to 0.32, median 0.022;
    # log10 nonzero 0.3 to 3.2, median 1.64; log10 solver work 4.1 to 6.9,
    # median 6.0), before any designer ran.
    "sparse_logreg_3obj": {
        "ideal": (0.0, 0.0, 4.0),
        "wide": (0.4, 3.3, 7.0),
        "tight": (0.025, 1.65, 6.0),
    },
    # Held out, two objectives: set from 300 random points (svm_2obj: error
    # 0.023 to 0.63, median 0.118, of those under 0.5 0.105; log10 support
    # vectors 1.33 to 2.58, median 2.28, of those 2.20. tree_2obj: error
    # 0.185 to 0.895, median 0.297, of those under 0.5 0.277; log10 leaves 0
    # to 1.85, median 1.29, of those 1.35), before any designer ran; "tight"
    # near the medians of the models that beat chance.
    "svm_2obj": {
        "ideal": (0.0, 1.0),
        "wide": (0.4, 2.6),
        "tight": (0.105, 2.2),
    },
    "tree_2obj": {
        "ideal": (0.0, 0.0),
        "wide": (0.6, 2.0),
        "tight": (0.28, 1.35),
    },
    # Held out, four objectives: set from 300 random points (error 0.128
    # to 0.27, median 0.17; log10 nodes 0.85 to 3.59, median 2.29; log10
    # split work 3.3 to 6.3, median 4.98; log10 nodes visited in serving
    # 3.08 to 5.21, median 4.21), before any designer ran; "tight" near
    # the medians of the three costs.
    "forest_4obj": {
        "ideal": (0.0, 0.0, 3.0, 2.5),
        "wide": (0.3, 4.0, 7.0, 5.5),
        "tight": (0.16, 2.3, 5.0, 4.2),
    },
}
# The same model, data and objectives as forest_3obj: its references.
for _name in ("forest_3obj_memory_cap", "forest_3obj_flaky", "forest_3obj_spiky"):
    REFERENCES[_name] = REFERENCES["forest_3obj"]


def single_objective():
    return [SvmCancer(), GboostSynthetic(), ForestSynthetic(), MlpDigits(), KnnWine(),
            KernelRidgeDiabetes(), ElasticNetSynthetic()]


def three_objectives():
    return [ForestThreeObjectives(), MlpThreeObjectives()]


def all_problems():
    return single_objective() + three_objectives()


def _linear_scales(problem_class):
    """`problem_class` with every log-scale parameter declared on a linear
    scale, as a user who left out UNIT_LOG_SCALE would: the same model and
    values, named with "_linear"."""
    space = [parameter[:4] + ("linear",) + parameter[5:]
             if len(parameter) > 4 and parameter[4] == "log" else parameter
             for parameter in problem_class.space]
    return type(problem_class.__name__ + "Linear", (problem_class,),
                {"name": problem_class.name + "_linear", "space": space,
                 "__doc__": f"{problem_class.name} with its log scales declared linear."})


def held_out():
    """Problems never used to choose the designers' rules (the first two
    rounds: four with one objective, one with three each; then one with
    four; then two with three whose trials fail; then three with one
    objective and categories of 5 to 9 values; then one with three whose
    error reports spike; then three with one objective whose log-scale
    parameters are declared linear; then two with one objective over a
    conditional space; then two with two objectives)."""
    return [TreeWine(), LogregDigits(), SvrFriedman(), HistBoostSynthetic(),
            GboostThreeObjectives(), SgdSynthetic(), AdaboostCancer(), KnnRegressionFriedman(),
            ExtraTreesDigits(), SparseLogregThreeObjectives(), ForestFourObjectives(),
            ForestThreeObjectivesMemoryCap(), ForestThreeObjectivesFlaky(), KnnMetricDigits(),
            SgdScheduleDigits(), ModelChoiceSynthetic(), ForestThreeObjectivesSpiky(),
            _linear_scales(MlpDigits)(), _linear_scales(HistBoostSynthetic)(),
            _linear_scales(SvrFriedman)(), ConditionalModelSynthetic(),
            ConditionalRegressionDiabetes(), SvmTwoObjectives(), TreeTwoObjectives()]


def by_name(name):
    for problem in all_problems() + held_out() + branching():
        if problem.name == name:
            return problem
    raise KeyError(f"unknown problem {name!r}; the deterministic problems are "
                   + ", ".join(p.name for p in all_problems()))
