import pytest
import pandas as pd
import numpy as np
import os
from feat.data import Fex
from feat.utils.io import read_openface, get_test_data_path, read_feat, video_to_tensor
# Adjacency import removed; Fex.distance now returns a pandas.DataFrame.


def test_info(capsys):
    importantstring = "ThisStringMustBeIncluded"
    fex = Fex(filename=importantstring)
    fex.info
    captured = capsys.readouterr()
    assert importantstring in captured.out


def test_fex_new(data_path):
    fex = pd.concat(
        map(lambda f: read_feat(os.path.join(data_path, f)), ["001.csv", "002.csv"])
    )
    assert fex.shape == (68, 173)

    assert "AU01" in fex.au_columns

    # Update sessions (grouping factor) to video ids to group rows (frames) by video
    by_video = fex.update_sessions(fex["input"])
    # Compute the mean per video
    video_means = by_video.extract_mean()

    # one row per video
    assert video_means.shape == (2, 172)

    # we rename columns when using extract methods
    # test that attribute renames have also propagated correctly
    hasprefix = lambda col: col.startswith("mean")
    assert all(map(hasprefix, video_means.au_columns))
    assert all(map(hasprefix, video_means.emotion_columns))
    assert all(map(hasprefix, video_means.facebox_columns))
    assert all(map(hasprefix, video_means.landmark_columns))
    assert all(map(hasprefix, video_means.facepose_columns))
    assert all(map(hasprefix, video_means.time_columns))


def test_fex_old(imotions_data):
    # Dropped support in >= 0.4.0
    with pytest.raises(Exception):
        Fex().read_facet()
    with pytest.raises(Exception):
        Fex().read_affectiva()

    df = imotions_data

    # Test slicing functions
    assert df.aus.shape == (519, 20)
    assert df.emotions.shape == (519, 12)
    assert df.faceboxes.shape == (519, 4)
    assert df.time.shape[-1] == 4
    assert df.design.shape[-1] == 4

    # Test metadata propagation to sliced series
    assert df.iloc[0].aus.shape == (20,)
    assert df.iloc[0].emotions.shape == (12,)
    assert df.iloc[0].faceboxes.shape == (4,)
    assert df.iloc[0].time.shape == (4,)
    assert df.iloc[0].design.shape == (4,)

    sessions = np.array([[x] * 10 for x in range(1 + int(len(df) / 10))]).flatten()[:-1]
    dat = Fex(
        df,
        sampling_freq=30,
        sessions=sessions,
        emotion_columns=[
            "Joy",
            "Anger",
            "Surprise",
            "Fear",
            "Contempt",
            "Disgust",
            "Sadness",
            "Confusion",
            "Frustration",
            "Neutral",
            "Positive",
            "Negative",
        ],
    )
    dat = dat[
        [
            "Joy",
            "Anger",
            "Surprise",
            "Fear",
            "Contempt",
            "Disgust",
            "Sadness",
            "Confusion",
            "Frustration",
            "Neutral",
            "Positive",
            "Negative",
        ]
    ]

    # Test Session ValueError
    with pytest.raises(ValueError):
        Fex(df, sampling_freq=30, sessions=sessions[:10])

    # Test length
    assert len(dat) == 519

    # Test sessions generator
    assert len(np.unique(dat.sessions)) == len([x for x in dat.itersessions()])

    # Test metadata propagation
    assert dat[["Joy"]].sampling_freq == dat.sampling_freq
    assert dat.iloc[:, 0].sampling_freq == dat.sampling_freq
    assert dat.iloc[0, :].sampling_freq == dat.sampling_freq
    assert dat.loc[[0], :].sampling_freq == dat.sampling_freq
    assert dat.loc[:, ["Joy"]].sampling_freq == dat.sampling_freq

    # Test Downsample
    assert len(dat.downsample(target=10)) == 52

    # Test upsample
    # Commenting out because of a bug in nltools: https://github.com/cosanlab/nltools/issues/418
    # assert len(dat.upsample(target=60, target_type="hz")) == (len(dat) - 1) * 2

    # Test interpolation
    assert (
        dat.interpolate(method="linear").isnull().sum()["Positive"]
        < dat.isnull().sum()["Positive"]
    )
    dat = dat.interpolate(method="linear")

    # Test distance
    d = dat[["Positive"]].distance()
    assert isinstance(d, pd.DataFrame)
    assert d.shape[0] == len(dat)
    assert d.shape[1] == len(dat)

    # Test Copy
    assert isinstance(dat.copy(), Fex)
    assert dat.copy().sampling_freq == dat.sampling_freq

    # Test rectification
    rectified = df.rectification()
    assert (
        df[df.au_columns].isna().sum().iloc[0]
        < rectified[rectified.au_columns].isna().sum().iloc[0]
    )

    # Test baseline
    assert isinstance(dat.baseline(baseline="median"), Fex)
    assert isinstance(dat.baseline(baseline="mean"), Fex)
    assert isinstance(dat.baseline(baseline="begin"), Fex)
    assert isinstance(dat.baseline(baseline=dat.mean()), Fex)
    assert isinstance(dat.baseline(baseline="median", ignore_sessions=True), Fex)
    assert isinstance(dat.baseline(baseline="mean", ignore_sessions=True), Fex)
    assert isinstance(dat.baseline(baseline=dat.mean(), ignore_sessions=True), Fex)
    assert isinstance(dat.baseline(baseline="median", normalize="pct"), Fex)
    assert isinstance(dat.baseline(baseline="mean", normalize="pct"), Fex)
    assert isinstance(dat.baseline(baseline=dat.mean(), normalize="pct"), Fex)
    assert isinstance(
        dat.baseline(baseline="median", ignore_sessions=True, normalize="pct"), Fex
    )
    assert isinstance(
        dat.baseline(baseline="mean", ignore_sessions=True, normalize="pct"), Fex
    )
    assert isinstance(
        dat.baseline(baseline=dat.mean(), ignore_sessions=True, normalize="pct"), Fex
    )
    # Test ValueError
    with pytest.raises(ValueError):
        dat.baseline(baseline="BadValue")

    # Test summary
    dat2 = dat.loc[:, ["Positive", "Negative"]].interpolate()
    out = dat2.extract_summary(min=True, max=True, mean=True)
    assert len(out) == len(np.unique(dat2.sessions))
    assert np.array_equal(out.sessions, np.unique(dat2.sessions))
    assert out.sampling_freq == dat2.sampling_freq
    assert dat2.shape[1] * 5 == out.shape[1]
    out = dat2.extract_summary(min=True, max=True, mean=True, ignore_sessions=True)
    assert len(out) == 1
    assert dat2.shape[1] * 5 == out.shape[1]

    # Test clean
    assert isinstance(dat.clean(), Fex)
    assert dat.clean().columns.equals(dat.columns)
    assert dat.clean().sampling_freq == dat.sampling_freq

    # Test Decompose
    n_components = 3
    stats = dat.decompose(algorithm="pca", axis=1, n_components=n_components)
    assert n_components == stats["components"].shape[1]
    assert n_components == stats["weights"].shape[1]

    stats = dat.decompose(algorithm="ica", axis=1, n_components=n_components)
    assert n_components == stats["components"].shape[1]
    assert n_components == stats["weights"].shape[1]

    new_dat = dat + 100
    stats = new_dat.decompose(algorithm="nnmf", axis=1, n_components=n_components)
    assert n_components == stats["components"].shape[1]
    assert n_components == stats["weights"].shape[1]

    stats = dat.decompose(algorithm="fa", axis=1, n_components=n_components)
    assert n_components == stats["components"].shape[1]
    assert n_components == stats["weights"].shape[1]

    stats = dat.decompose(algorithm="pca", axis=0, n_components=n_components)
    assert n_components == stats["components"].shape[1]
    assert n_components == stats["weights"].shape[1]

    stats = dat.decompose(algorithm="ica", axis=0, n_components=n_components)
    assert n_components == stats["components"].shape[1]
    assert n_components == stats["weights"].shape[1]

    new_dat = dat + 100
    stats = new_dat.decompose(algorithm="nnmf", axis=0, n_components=n_components)
    assert n_components == stats["components"].shape[1]
    assert n_components == stats["weights"].shape[1]

    stats = dat.decompose(algorithm="fa", axis=0, n_components=n_components)
    assert n_components == stats["components"].shape[1]
    assert n_components == stats["weights"].shape[1]


def test_openface():
    # For OpenFace data file
    filename = os.path.join(get_test_data_path(), "OpenFace_Test.csv")
    openface = Fex(read_openface(filename), sampling_freq=30)

    # Test KeyError
    with pytest.raises(KeyError):
        Fex(read_openface(filename, features=["NotHere"]), sampling_freq=30)

    # Test length
    assert len(openface) == 100

    # Test loading from filename
    openface = Fex(filename=filename, sampling_freq=30, detector="OpenFace")
    openface = openface.read_file()

    # Test length?
    assert len(openface) == 100

    # Test landmark methods
    assert openface.landmarks.shape[1] == 136
    assert openface.iloc[0].landmarks.shape[0] == 136
    assert openface.landmarks_x.shape[1] == openface.landmarks_y.shape[1]
    assert openface.iloc[0].landmarks_x.shape[0] == openface.iloc[0].landmarks_y.shape[0]


def test_feat():
    filename = os.path.join(get_test_data_path(), "Feat_Test.csv")
    fex = Fex(filename=filename, detector="Feat")
    fex = fex.read_file()
    # test input property
    assert fex.inputs.values[0] == fex.iloc[0].inputs


def test_stats():
    filename = os.path.join(get_test_data_path(), "OpenFace_Test.csv")
    openface = Fex(filename=filename, sampling_freq=30, detector="OpenFace")
    openface = openface.read_file()

    aus = openface.aus
    aus.sessions = range(len(aus))
    y = aus[[i for i in aus.columns if "_r" in i]]
    X = pd.DataFrame(aus.sessions)
    b, se, t, p, df, res = aus.regress(X, y, mode="ols", fit_intercept=True)
    assert b.shape == (2, 17)
    assert res.mean().mean() < 1

    clf, scores = openface.predict(X=["AU02_c"], y=["AU04_c"])
    assert clf.coef_ < 0

    clf, scores = openface.predict(X=openface[["AU02_c"]], y=openface["AU04_c"])
    assert clf.coef_ < 0

    t, p = openface[["AU02_c"]].ttest_1samp()
    assert t > 0

    a = openface.aus.assign(input="0")
    b = openface.aus.apply(lambda x: x + np.random.rand(100)).assign(input="1")
    doubled = pd.concat([a, b])
    doubled.sessions = doubled["input"]
    t, p = doubled.ttest_ind(col="AU12_r", sessions=("0", "1"))
    assert t < 0

    frame = np.concatenate(
        [np.array(range(int(len(doubled) / 2))), np.array(range(int(len(doubled) / 2)))]
    )
    assert doubled.assign(frame=frame).isc(col="AU04_r").iloc[0, 0] == 1


def test_video_to_tensor(single_face_mov):
    tensor = video_to_tensor(single_face_mov)
    assert tensor.shape == (72, 3, 360, 640)


def test_fex_preserves_model_identity_metadata():
    """Fex output of detect() carries model identity in _metadata.

    Detectorv1 and MPDetector both pass model names into the Fex
    constructor (face_model, landmark_model, au_model, emotion_model,
    facepose_model, identity_model). _metadata is the propagation
    contract: anything listed there must survive copy / slice / concat
    via __finalize__. This test guards against accidentally dropping a
    model-identity field from _metadata or stopping populating it.
    """
    fex = Fex(
        face_model="img2pose",
        landmark_model="mobilefacenet",
        au_model="xgb",
        emotion_model="resmasknet",
        facepose_model="img2pose",
        identity_model="arcface",
    )
    assert fex.face_model == "img2pose"
    assert fex.landmark_model == "mobilefacenet"
    assert fex.au_model == "xgb"
    assert fex.emotion_model == "resmasknet"
    assert fex.facepose_model == "img2pose"
    assert fex.identity_model == "arcface"

    for name in (
        "face_model",
        "landmark_model",
        "au_model",
        "emotion_model",
        "facepose_model",
        "identity_model",
    ):
        assert name in fex._metadata, f"{name} must be a Fex._metadata field"

    sliced = fex.iloc[:0].copy()
    assert sliced.face_model == "img2pose"
    assert sliced.au_model == "xgb"


def test_append_concatenates_features():
    """Regression: Fex.append must use pd.concat, not the removed
    DataFrame.append (gone in pandas 2.0). Also guards the bare-DataFrame
    assignment when only the appended Fex carries features."""
    df = pd.DataFrame({"AU01": [0.1, 0.2], "AU02": [0.3, 0.4]})
    feats = pd.DataFrame({"f0": [1.0, 2.0]})
    a = Fex(df.copy(), sampling_freq=30, au_columns=["AU01", "AU02"],
            features=feats.copy())
    b = Fex(df.copy(), sampling_freq=30, au_columns=["AU01", "AU02"],
            features=feats.copy())

    out = a.append(b)                       # axis=0
    assert isinstance(out, Fex)
    assert len(out) == 4
    assert out.features is not None and out.features.shape == (4, 1)

    # only the appended Fex has features: out must stay the concatenated Fex
    # (the bug did `out = data.features`, replacing it with a bare DataFrame)
    c = Fex(df.copy(), sampling_freq=30, au_columns=["AU01", "AU02"])
    out2 = c.append(b)
    assert isinstance(out2, Fex)
    assert len(out2) == 4
    assert out2.features is not None


def test_baseline_db_branch_applied():
    """Regression: normalize='db' must return the dB transform, not be
    overwritten by the plain-subtraction `else` branch."""
    df = pd.DataFrame({"A": [2.0, 4.0, 6.0], "B": [3.0, 5.0, 7.0]})
    dat = Fex(df, sampling_freq=30, au_columns=["A", "B"])
    base = dat.mean() * 0 + 1.0                      # constant baseline of 1.0
    db = dat.baseline(baseline=base, normalize="db", ignore_sessions=True)
    plain = dat.baseline(baseline=base, normalize=None, ignore_sessions=True)
    expected = 10 * np.log10(df - 1.0) / 1.0
    assert np.allclose(db.values, expected.values)
    assert not np.allclose(db.values, plain.values)


def test_baseline_db_per_session_no_double_append():
    """Regression: the per-session 'db' path must not also run the `else`
    subtraction (which doubled the row count)."""
    df = pd.DataFrame({"A": [2.0, 4.0, 6.0, 8.0], "B": [3.0, 5.0, 7.0, 9.0]})
    dat = Fex(df, sampling_freq=30, sessions=np.array([0, 0, 1, 1]),
              au_columns=["A", "B"])
    out = dat.baseline(baseline="mean", normalize="db")    # per-session branch
    assert len(out) == len(dat)


def test_clean_preserves_metadata():
    """Regression: Fex.clean() must __finalize__ so column metadata survives."""
    df = pd.DataFrame({"AU01": np.linspace(0, 1, 50), "AU02": np.linspace(1, 0, 50)})
    dat = Fex(df, sampling_freq=30, au_columns=["AU01", "AU02"])
    cleaned = dat.clean()
    assert isinstance(cleaned, Fex)
    assert cleaned.au_columns == ["AU01", "AU02"]
    assert cleaned.sampling_freq == dat.sampling_freq
